from .cycle_a import Loop
