#!  
  // c
 [allow(unused)]
#[rbac(verbs = "get")] fn f() {}
