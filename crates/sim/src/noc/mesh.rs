//! The mesh's topology and its routing: node (x, y) is row-major id y × width + x; each router
//! has five ports (its own node's, and one to each neighbour), and a packet goes along X first,
//! then along Y (dimension-order XY routing, deadlock-free on a mesh without further rules:
//! Dally & Towles, "Principles and Practices of Interconnection Networks", on deadlock). Table 2 of
//! Yao & Lu uses it.

use ampsched_model::Interconnect;

/// The ports of a router: its node's network interface, then the four directions.
pub const LOCAL: usize = 0;
pub const NORTH: usize = 1;
pub const EAST: usize = 2;
pub const SOUTH: usize = 3;
pub const WEST: usize = 4;
pub const PORTS: usize = 5;

#[derive(Debug, Clone)]
pub struct Mesh {
    pub width: u16,
    pub height: u16,
    /// Each node's (x, y), looked up rather than divided out at every hop.
    coords: Vec<(u16, u16)>,
}

impl Mesh {
    pub fn new(spec: &Interconnect) -> Mesh {
        let coords = (0..spec.width as u32 * spec.height as u32).map(|n| ((n % spec.width as u32) as u16, (n / spec.width as u32) as u16)).collect();
        Mesh { width: spec.width, height: spec.height, coords }
    }

    pub fn nodes(&self) -> usize {
        self.width as usize * self.height as usize
    }

    fn xy(&self, node: u16) -> (u16, u16) {
        self.coords[node as usize]
    }

    /// The output port a packet for `dst` takes at router `here`: X first, then Y (north is
    /// towards row 0); LOCAL when it has arrived.
    pub fn route(&self, here: u16, dst: u16) -> usize {
        let ((x, y), (dx, dy)) = (self.xy(here), self.xy(dst));
        if dx > x {
            EAST
        } else if dx < x {
            WEST
        } else if dy > y {
            SOUTH
        } else if dy < y {
            NORTH
        } else {
            LOCAL
        }
    }

    /// The router beyond output `port` of `here`, and the input port the packet enters it by.
    /// Only called with a port `route` chose, so the neighbour exists.
    pub fn neighbour(&self, here: u16, port: usize) -> (u16, usize) {
        match port {
            NORTH => (here - self.width, SOUTH),
            SOUTH => (here + self.width, NORTH),
            EAST => (here + 1, WEST),
            WEST => (here - 1, EAST),
            _ => unreachable!("the local port has no neighbour"),
        }
    }

    /// Links between `src` and `dst` on the XY path (the Manhattan distance).
    pub fn hops(&self, src: u16, dst: u16) -> u32 {
        let ((x0, y0), (x1, y1)) = (self.xy(src), self.xy(dst));
        (x0.abs_diff(x1) + y0.abs_diff(y1)) as u32
    }
}
