#[kube_markers::schema]
fn not_a_type() {}

fn main() {}
