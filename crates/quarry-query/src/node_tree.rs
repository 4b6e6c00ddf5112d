//! Every node of a file's tree in flat arrays, filled by one cursor walk:
//! the nodes in pre-order with their parents, kinds and named flags, and a
//! map from tree-sitter ids to positions. Parents are read from it
//! (tree-sitter's own `Node::parent` searches down from the root every
//! time), and walks that would go back to tree-sitter's cursor (every
//! function's own nodes) run over the arrays instead.

use quarry_syntax::walk::NodeIdMap;
use tree_sitter::Node;

use crate::syntax::{Kind, SyntaxNode};

/// No node (the root's parent).
const NONE: u32 = u32::MAX;

/// The nodes of one tree in pre-order (source order), named and anonymous.
pub struct NodeTree<'t> {
    /// The nodes, the root first.
    nodes: Vec<Node<'t>>,
    /// The position of each node's parent (`NONE` for the root).
    parents: Vec<u32>,
    /// Each node's kind; read only for named nodes ([`Kind::Unknown`] for
    /// anonymous ones, which [`NodeTree::is_named`] tells apart).
    kinds: Vec<Kind>,
    /// Whether each node is named.
    named: Vec<bool>,
    /// The position just past each node's subtree.
    ends: Vec<u32>,
    /// The position of every node, by tree-sitter id.
    positions: NodeIdMap<u32>,
    /// The depth of the deepest node (the root at 0) and its position.
    deepest: (usize, u32),
}

impl<'t> NodeTree<'t> {
    /// Indexes `root` and every node below it, calling `visit` on each
    /// named node in pre-order with its kind, so that callers can index the
    /// nodes in the same walk (which also finds the deepest node).
    pub fn build_visiting(root: Node<'t>, mut visit: impl FnMut(Node<'t>, Kind)) -> NodeTree<'t> {
        // Sized once: tree-sitter knows the count of visible descendants.
        let count = root.descendant_count();
        let mut tree = NodeTree {
            nodes: Vec::with_capacity(count),
            parents: Vec::with_capacity(count),
            kinds: Vec::with_capacity(count),
            named: Vec::with_capacity(count),
            ends: Vec::with_capacity(count),
            positions: NodeIdMap::with_capacity_and_hasher(count, Default::default()),
            deepest: (0, 0),
        };
        let mut cursor = root.walk();
        // The positions of the nodes from the root down to the current one's parent.
        let mut stack: Vec<u32> = Vec::new();
        loop {
            let node = cursor.node();
            let position = tree.nodes.len() as u32;
            let named = node.is_named();
            let kind = if named { node.py_kind() } else { Kind::Unknown };
            if named {
                visit(node, kind);
            }
            if stack.len() > tree.deepest.0 {
                tree.deepest = (stack.len(), position);
            }
            tree.nodes.push(node);
            tree.parents.push(stack.last().copied().unwrap_or(NONE));
            tree.kinds.push(kind);
            tree.named.push(named);
            tree.ends.push(position + 1);
            tree.positions.insert(node.id(), position);
            if cursor.goto_first_child() {
                stack.push(position);
                continue;
            }
            loop {
                if cursor.goto_next_sibling() {
                    break;
                }
                // The parent's subtree ends here.
                let Some(parent) = stack.pop() else { return tree };
                tree.ends[parent as usize] = tree.nodes.len() as u32;
                if stack.is_empty() || !cursor.goto_parent() {
                    return tree;
                }
            }
        }
    }

    /// The depth of the deepest node (the root is at 0; the first such
    /// node in pre-order) and that node.
    pub fn deepest(&self) -> (usize, Node<'t>) {
        (self.deepest.0, self.nodes[self.deepest.1 as usize])
    }

    /// The node with tree-sitter id `id`, if it is one of the tree's.
    pub fn node_of_id(&self, id: usize) -> Option<Node<'t>> {
        self.positions.get(&id).map(|&i| self.nodes[i as usize])
    }

    /// The parent of the node with tree-sitter id `id` (a node of the
    /// indexed tree, seen through any borrow of it).
    pub fn parent_of_id(&self, id: usize) -> Option<Node<'t>> {
        let &position = self.positions.get(&id)?;
        match self.parents[position as usize] {
            NONE => None,
            parent => Some(self.nodes[parent as usize]),
        }
    }

    /// The parent of `node`, if it has one in the indexed tree.
    pub fn parent(&self, node: Node<'t>) -> Option<Node<'t>> {
        self.parent_of_id(node.id())
    }

    /// The position of a node of the tree (`None` for a node of another tree).
    pub fn position(&self, node: Node<'_>) -> Option<usize> {
        self.positions.get(&node.id()).map(|&i| i as usize)
    }

    /// The parent of the node at `position` (`None` for the root).
    pub fn parent_at(&self, position: usize) -> Option<Node<'t>> {
        self.parent_position(position).map(|p| self.nodes[p])
    }

    /// A pre-order walk of `node` and every node below it, named and
    /// anonymous, as [`quarry_syntax::walk::Preorder`] gives them, read from
    /// the arrays (empty for a node of another tree).
    pub fn walk(&self, node: Node<'_>) -> SubtreeWalk<'_, 't> {
        let (next, end) = match self.position(node) {
            Some(start) => (start, self.ends[start] as usize),
            None => (0, 0),
        };
        SubtreeWalk { tree: self, next, end, last: None }
    }

    /// The named children of a node of the tree, in order, as tree-sitter's
    /// `Node::named_children` lists them, read from the arrays (none for a
    /// node of another tree).
    pub fn named_children(&self, node: Node<'_>) -> NamedChildren<'_, 't> {
        let (next, end) = match self.position(node) {
            Some(at) => (at + 1, self.ends[at] as usize),
            None => (0, 0),
        };
        NamedChildren { tree: self, next, end }
    }

    /// The count of nodes.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the tree has no node (never: the root is always there).
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The node at a position (in pre-order).
    pub fn node(&self, position: usize) -> Node<'t> {
        self.nodes[position]
    }

    /// The position of the parent of the node at `position` (`None` for the
    /// root).
    pub fn parent_position(&self, position: usize) -> Option<usize> {
        match self.parents[position] {
            NONE => None,
            parent => Some(parent as usize),
        }
    }

    /// Whether the node at `position` is named.
    pub fn is_named(&self, position: usize) -> bool {
        self.named[position]
    }

    /// The kind of the named node at `position` ([`Kind::Unknown`] for an
    /// anonymous one).
    pub fn kind(&self, position: usize) -> Kind {
        self.kinds[position]
    }
}

/// A pre-order walk of a subtree over a [`NodeTree`]'s arrays: positions
/// with their nodes.
pub struct SubtreeWalk<'a, 't> {
    tree: &'a NodeTree<'t>,
    next: usize,
    end: usize,
    last: Option<usize>,
}

impl SubtreeWalk<'_, '_> {
    /// Skips the descendants of the node yielded last.
    pub fn skip_children(&mut self) {
        if let Some(last) = self.last {
            self.next = self.next.max(self.tree.ends[last] as usize);
        }
    }
}

impl<'t> Iterator for SubtreeWalk<'_, 't> {
    type Item = (usize, Node<'t>);

    fn next(&mut self) -> Option<(usize, Node<'t>)> {
        if self.next >= self.end {
            return None;
        }
        let position = self.next;
        self.next += 1;
        self.last = Some(position);
        Some((position, self.tree.nodes[position]))
    }
}

/// The named children of a node, read from a [`NodeTree`]'s arrays.
pub struct NamedChildren<'a, 't> {
    tree: &'a NodeTree<'t>,
    next: usize,
    end: usize,
}

impl<'t> Iterator for NamedChildren<'_, 't> {
    type Item = Node<'t>;

    fn next(&mut self) -> Option<Node<'t>> {
        while self.next < self.end {
            let child = self.next;
            // The next child starts where this one's subtree ends.
            self.next = self.tree.ends[child] as usize;
            if self.tree.named[child] {
                return Some(self.tree.nodes[child]);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quarry_syntax::{Language, ParsedFile, SourceFile};

    #[test]
    fn parents_and_order_match_tree_sitter() {
        let source = "def f(a, *b: int):\n    return a is not b\nclass C(B):\n    x = [1, (2)]\nif x: (\n";
        let file = ParsedFile::parse(SourceFile::from_text("t.py", source), Language::Python).unwrap();
        let mut visited = Vec::new();
        let tree = NodeTree::build_visiting(file.root(), |node, kind| visited.push((node.id(), kind)));
        let (depth, deepest) = quarry_syntax::budget::deepest_node(file.root());
        assert_eq!((tree.deepest().0, tree.deepest().1.id()), (depth, deepest.id()));
        let all: Vec<Node<'_>> = quarry_syntax::walk::Preorder::new(file.root()).collect();
        assert_eq!(tree.len(), all.len());
        for (i, node) in all.iter().enumerate() {
            assert_eq!(tree.node(i).id(), node.id());
            assert_eq!(tree.parent(*node).map(|p| p.id()), node.parent().map(|p| p.id()), "{node:?}");
            assert_eq!(tree.is_named(i), node.is_named());
            assert_eq!(tree.node_of_id(node.id()).map(|n| n.id()), Some(node.id()));
        }
        let named: Vec<(usize, Kind)> = all.iter().filter(|n| n.is_named()).map(|n| (n.id(), n.py_kind())).collect();
        assert_eq!(visited, named);
        // Walks of every subtree, whole and skipping the children of some
        // nodes, match tree-sitter's.
        for node in &all {
            let ours: Vec<usize> = tree.named_children(*node).map(|n| n.id()).collect();
            let theirs: Vec<usize> = node.named_children(&mut node.walk()).map(|n| n.id()).collect();
            assert_eq!(ours, theirs);
            let ours: Vec<usize> = tree.walk(*node).map(|(_, n)| n.id()).collect();
            let theirs: Vec<usize> = quarry_syntax::walk::Preorder::new(*node).map(|n| n.id()).collect();
            assert_eq!(ours, theirs);
            let (mut ours, mut theirs) = (Vec::new(), Vec::new());
            let mut walk = tree.walk(*node);
            while let Some((_, n)) = walk.next() {
                ours.push(n.id());
                if n.py_kind() == Kind::Parameters || n.py_kind() == Kind::List {
                    walk.skip_children();
                }
            }
            let mut walk = quarry_syntax::walk::Preorder::new(*node);
            while let Some(n) = walk.next() {
                theirs.push(n.id());
                if n.py_kind() == Kind::Parameters || n.py_kind() == Kind::List {
                    walk.skip_children();
                }
            }
            assert_eq!(ours, theirs);
        }
    }
}
