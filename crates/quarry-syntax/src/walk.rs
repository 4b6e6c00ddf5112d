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

/// The parent of every node of a tree, found by one walk. tree-sitter's own
/// `Node::parent` searches down from the root, scanning siblings at each
/// level, which makes it costly in hot loops over wide or deep trees.
pub struct ParentIndex<'tree> {
    parents: std::collections::HashMap<usize, Node<'tree>>,
}

impl<'tree> ParentIndex<'tree> {
    /// Indexes every node below `root`.
    pub fn build(root: Node<'tree>) -> ParentIndex<'tree> {
        let mut parents = std::collections::HashMap::new();
        let mut cursor = root.walk();
        let mut stack: Vec<Node<'tree>> = Vec::new();
        loop {
            let node = cursor.node();
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

    /// The parent of `node`, if it has one in the indexed tree.
    pub fn parent(&self, node: Node<'tree>) -> Option<Node<'tree>> {
        self.parents.get(&node.id()).copied()
    }
}
