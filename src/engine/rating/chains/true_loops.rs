//! Which starts of level 1's bidirectional cycle searches can find a cycle that
//! removes anything, read from the solution (an exact filter: the searches it
//! skips would find nothing).
//!
//! Every link of a cycle holds both ways (a weak link: not both nodes true; a strong
//! link: not both false), so around a cycle its on and off nodes alternate true and
//! false: either every on node is the solution's digit of its cell, or every off
//! node is. Read in the direction whose on nodes are true, a cycle is a circuit of
//! the *true graph*: one node per empty cell (its solution's digit), and an edge
//! from T to T′ when "T on" switches off a node that switches "T′ on" (with the
//! search's links). So a cycle's true nodes lie in one strong component of the true
//! graph, its false nodes are weakly linked to one of them and strongly to
//! another, and a candidate it removes (outside its cells, seeing an on and an off
//! node of its digit) is a wrong candidate that sees a true and a false node of its
//! digit. A component where no candidate does holds no cycle that removes anything,
//! so a start is searched only when its true node (its own, or a strong partner's
//! when it is false) lies in a component where one does.

use super::super::tables::{Cells128, CELL_UNITS, PEERS, UNIT_MASK};
use super::super::Pencilmarks;
use super::{set, FewBits, Nodes, Set729, Strong};

/// The true graph of one step, by cell, and Tarjan's scratch for its components.
pub(super) struct TrueGraph {
    next: [u128; 81],
    index: [u8; 81],
    low: [u8; 81],
    stack: [u8; 81],
    on_stack: u128,
    depth: usize,
    count: u8,
    /// The components of more than one cell found so far.
    components: [u128; 40],
    found: usize,
}

/// Not yet visited by Tarjan's search.
const UNSEEN: u8 = u8::MAX;

impl TrueGraph {
    pub(super) fn new() -> Self {
        TrueGraph {
            next: [0; 81],
            index: [UNSEEN; 81],
            low: [0; 81],
            stack: [0; 81],
            on_stack: 0,
            depth: 0,
            count: 0,
            components: [0; 40],
            found: 0,
        }
    }

    /// The nodes worth starting a cycle search from: those whose true node's
    /// component (see the module) has a candidate among `targets` a cycle could
    /// remove. `y`: the search's links are those of bivalue cells (Y-cycles), else
    /// every static link, whose on-to-on links are `succ`'s.
    pub(super) fn starts(
        &mut self,
        b: &Pencilmarks,
        strong: &Strong,
        succ: &[Nodes; 729],
        solution: &[u8; 81],
        y: bool,
        targets: &Nodes,
    ) -> Set729 {
        let truth = |c: usize| solution[c] as usize - 1;
        let mut placed = [0u128; 9];
        for c in Cells128(b.empty) {
            placed[truth(c)] |= 1 << c;
        }
        // The edges: a Y-cycle's on nodes lie on bivalue cells, and the off node
        // between two is the second one's wrong candidate.
        for c in Cells128(b.empty) {
            let t = 9 * c + truth(c);
            self.next[c] = if y {
                let bivalue = 0u128.wrapping_sub(strong.bivalue >> c & 1);
                PEERS[c] & strong.bivalue & b.pos[truth(c)] & bivalue
            } else {
                let next = (succ[t].iter().zip(&placed)).fold(0, |next, (s, p)| next | s & p);
                next & !(1 << c)
            };
            self.index[c] = UNSEEN;
        }
        self.on_stack = 0;
        self.depth = 0;
        self.count = 0;
        self.found = 0;
        for c in Cells128(b.empty) {
            if self.index[c] == UNSEEN && self.next[c] != 0 {
                self.visit(c);
            }
        }
        let seen = |set: u128| Cells128(set).fold(0u128, |acc, c| acc | PEERS[c]);
        let mut open = 0u128;
        for &component in &self.components[..self.found] {
            // The off nodes weakly linked to a true node of the component and
            // strongly to one: its wrong candidates on bivalue cells (a Y-cycle's
            // only strong links), the digits' other places in their units.
            let removes = (0..9).any(|d| {
                let right = component & placed[d];
                if right == 0 {
                    return false;
                }
                let own = component & strong.bivalue & b.pos[d] & !placed[d];
                let mut partners = own;
                if !y {
                    for c in Cells128(right) {
                        for &u in &CELL_UNITS[c] {
                            let places = b.pos[d] & UNIT_MASK[u as usize];
                            if places.two() {
                                partners |= places & !(1 << c);
                            }
                        }
                    }
                }
                let weak = seen(right) & b.pos[d] | component & b.pos[d] & !placed[d];
                let wrong = weak & partners;
                wrong != 0 && targets[d] & !placed[d] & seen(right) & seen(wrong) != 0
            });
            if removes {
                open |= component;
            }
        }
        let mut starts: Set729 = [0; 12];
        for c in Cells128(open) {
            let t = 9 * c + truth(c);
            set(&mut starts, t);
            for &(partner, _) in strong.from(t) {
                set(&mut starts, partner as usize);
            }
        }
        starts
    }

    /// Tarjan's search from cell `c`: each component of more than one cell goes to
    /// `components`.
    fn visit(&mut self, c: usize) {
        self.index[c] = self.count;
        self.low[c] = self.count;
        self.count += 1;
        self.stack[self.depth] = c as u8;
        self.depth += 1;
        self.on_stack |= 1 << c;
        for q in Cells128(self.next[c]) {
            if self.index[q] == UNSEEN {
                self.visit(q);
                self.low[c] = self.low[c].min(self.low[q]);
            } else if self.on_stack >> q & 1 != 0 {
                self.low[c] = self.low[c].min(self.index[q]);
            }
        }
        if self.low[c] != self.index[c] {
            return;
        }
        let mut component = 0u128;
        loop {
            self.depth -= 1;
            let q = self.stack[self.depth] as usize;
            component |= 1 << q;
            if q == c {
                break;
            }
        }
        self.on_stack &= !component;
        if component.count_ones() > 1 {
            self.components[self.found] = component;
            self.found += 1;
        }
    }
}
