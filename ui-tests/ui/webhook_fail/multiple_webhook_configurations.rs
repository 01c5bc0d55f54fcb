use kube_markers::webhook_configuration;

// controller-tools testdata invalid-multiple-webhookconfigurations: two of one kind.
#[webhook_configuration(mutating = true, name = "foo")]
#[webhook_configuration(mutating = true, name = "bar")]
const _: () = ();

#[webhook_configuration(name = "no-kind")]
struct NoKind;

#[webhook_configuration(mutating = false, name = "Not_A_Name", nmae = "x")]
struct BadName;

fn main() {}
