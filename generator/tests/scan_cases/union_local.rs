pub fn within(a: u8, limit: u8) -> bool {
    let union = a | 1;
    let small = union as u8 - 1 < limit;
    #[rbac(verbs = "get")]
    fn helper() {}
    small
}
