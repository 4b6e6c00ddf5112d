//! Iterative tree walks: no recursion, so deeply nested code cannot overflow the stack.

use tree_sitter::{Node, TreeCursor};

/// Pre-order traversal of a node and all its descendants, in source order.
pub struct Preorder<'tree> {
    cursor: TreeCursor<'tree>,
    root_id: usize,
    started: bool,
    descend: bool,
    done: bool,
}

impl<'tree> Preorder<'tree> {
    /// Starts a traversal at `root` (which is yielded first).
    pub fn new(root: Node<'tree>) -> Self {
        Preorder { cursor: root.walk(), root_id: root.id(), started: false, descend: true, done: false }
    }

    /// Skips the descendants of the node yielded last.
    pub fn skip_children(&mut self) {
        self.descend = false;
    }

    fn advance_past_subtree(&mut self) {
        loop {
            if self.cursor.node().id() == self.root_id {
                self.done = true;
                return;
            }
            if self.cursor.goto_next_sibling() {
                return;
            }
            if !self.cursor.goto_parent() {
                self.done = true;
                return;
            }
        }
    }
}

impl<'tree> Iterator for Preorder<'tree> {
    type Item = Node<'tree>;

    fn next(&mut self) -> Option<Node<'tree>> {
        if self.started {
            // Move past the node yielded last, into its children unless skipped.
            if !(self.descend && self.cursor.goto_first_child()) {
                self.advance_past_subtree();
            }
        }
        self.started = true;
        self.descend = true;
        if self.done {
            return None;
        }
        Some(self.cursor.node())
    }
}

/// Depth of each node as it is visited: `(node, depth)` in pre-order.
pub fn preorder_with_depth(root: Node<'_>) -> impl Iterator<Item = (Node<'_>, usize)> {
    let mut cursor = root.walk();
    let mut depth = 0usize;
    let mut done = false;
    std::iter::from_fn(move || {
        if done {
            return None;
        }
        let item = (cursor.node(), depth);
        if cursor.goto_first_child() {
            depth += 1;
        } else {
            loop {
                if depth == 0 {
                    done = true;
                    break;
                }
                if cursor.goto_next_sibling() {
                    break;
                }
                cursor.goto_parent();
                depth -= 1;
            }
        }
        Some(item)
    })
}

/// Hashes tree-sitter node ids (addresses inside the tree) by one
/// multiplication: the default SipHash costs more than the lookups it
/// serves in the parent index, which every analysis reads.
#[derive(Default, Clone, Copy)]
pub struct NodeIdHasher(u64);

impl std::hash::Hasher for NodeIdHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_usize(&mut self, id: usize) {
        // Node ids are aligned addresses: fold the high bits of the product
        // down so that hashbrown's top-7-bit tags and low-bit buckets differ.
        let h = (id as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.0 = h ^ (h >> 32);
    }
}

/// A map keyed by tree-sitter node ids, hashed with [`NodeIdHasher`].
pub type NodeIdMap<V> = std::collections::HashMap<usize, V, std::hash::BuildHasherDefault<NodeIdHasher>>;

/// The parent of every node of a tree, found by one walk. tree-sitter's own
/// `Node::parent` searches down from the root, scanning siblings at each
/// level, which makes it costly in hot loops over wide or deep trees.
pub struct ParentIndex<'tree> {
    parents: NodeIdMap<Node<'tree>>,
}

impl<'tree> ParentIndex<'tree> {
    /// Indexes every node below `root`.
    pub fn build(root: Node<'tree>) -> ParentIndex<'tree> {
        ParentIndex::build_visiting(root, |_, _| {})
    }

    /// Indexes every node below `root`, calling `visit` on `root` and every
    /// node below it in pre-order with its depth (`root` at 0), so that
    /// callers can index the nodes, or measure the tree, in the same walk.
    pub fn build_visiting(root: Node<'tree>, mut visit: impl FnMut(Node<'tree>, usize)) -> ParentIndex<'tree> {
        // Sized once: tree-sitter knows the count of visible descendants.
        let mut parents = NodeIdMap::with_capacity_and_hasher(root.descendant_count(), Default::default());
        let mut cursor = root.walk();
        let mut stack: Vec<Node<'tree>> = Vec::new();
        loop {
            let node = cursor.node();
            visit(node, stack.len());
            if let Some(&parent) = stack.last() {
                parents.insert(node.id(), parent);
            }
            if cursor.goto_first_child() {
                stack.push(node);
                continue;
            }
            loop {
                if cursor.goto_next_sibling() {
                    break;
                }
                if !cursor.goto_parent() {
                    return ParentIndex { parents };
                }
                stack.pop();
                if stack.is_empty() {
                    return ParentIndex { parents };
                }
            }
        }
    }

    /// The parent of the node with tree-sitter id `id` (a node of the
    /// indexed tree, seen through any borrow of it).
    pub fn parent_of_id(&self, id: usize) -> Option<Node<'tree>> {
        self.parents.get(&id).copied()
    }

    /// The parent of `node`, if it has one in the indexed tree.
    pub fn parent(&self, node: Node<'tree>) -> Option<Node<'tree>> {
        self.parents.get(&node.id()).copied()
    }
}
