pub const N: usize = 1usize+include!("n.rs");
