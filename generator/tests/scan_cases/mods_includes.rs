#[cfg(any())] mod a;
#[cfg_attr(unix, path = "u.rs")] #[cfg_attr(windows, path = "w.rs")] mod b;
fn f() { #[path = "c.rs"] mod c; }
m! { #[path = "d.rs"] pub(crate) mod d; include!("e.rs"); ::std::include!("f.rs"); }
::core::include!("g.rs");
std::include!{"h.rs"}
other::include!("no.rs");
include!(concat!(env!("CARGO_MANIFEST_DIR"), "/i.rs"));
include!(concat!(env!("OUT_DIR"), "/j.rs"));
mod inl { mod deeper { include!("k.rs"); mod l; } }
#[cfg(any())] const _: () = { include!("m.rs"); };
