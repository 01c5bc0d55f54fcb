//! controller-tools' webhook testdata (`pkg/webhook/testdata/valid*`, v0.23.0): each valid
//! set's markers, written as attributes, must give the bytes the real controller-gen writes for
//! the same markers (controller-tools' own tests compare the YAML semantically, so its golden
//! files are not byte-exact; the binary built by `scripts/controller-gen.sh` is the oracle).
//!
//! One deviation: `valid-custom-service` names its Service `DEAD` in namespace `BEEF`, which
//! the API server refuses (names are lowercase) and `#[webhook]` therefore too; both sides use
//! `dead`/`beef` here.

use kube_markers::codegen::webhook::{configurations, render};
use kube_markers::registry::{webhook_configuration_entries, webhook_entries};
use kube_markers::{webhook, webhook_configuration};
use std::path::Path;
use std::process::Command;

/// `valid`: two validating webhooks of one name (source order kept), a mutating one.
mod valid {
    use super::*;
    #[webhook(
        webhookVersions = "v1",
        verbs = "create;update",
        path = "/validate-testdata-kubebuilder-io-v1-cronjob",
        mutating = false,
        failurePolicy = "fail",
        matchPolicy = "Equivalent",
        groups = "testdata.kubebuilder.io",
        resources = "cronjobs",
        versions = "v1",
        name = "validation.cronjob.testdata.kubebuilder.io",
        sideEffects = "None",
        timeoutSeconds = 10,
        admissionReviewVersions = "v1;v1beta1"
    )]
    #[webhook(
        verbs = "create;update",
        path = "/validate-testdata-kubebuilder-io-v1-cronjob",
        mutating = false,
        failurePolicy = "fail",
        matchPolicy = "Equivalent",
        groups = "testdata.kubebuilder.io",
        resources = "cronjobs",
        versions = "v1",
        name = "validation.cronjob.testdata.kubebuilder.io",
        sideEffects = "NoneOnDryRun",
        timeoutSeconds = 10,
        admissionReviewVersions = "v1;v1beta1"
    )]
    #[webhook(
        webhookVersions = "v1",
        verbs = "create;update",
        path = "/mutate-testdata-kubebuilder-io-v1-cronjob",
        mutating = true,
        failurePolicy = "fail",
        matchPolicy = "Equivalent",
        groups = "testdata.kubebuilder.io",
        resources = "cronjobs",
        versions = "v1",
        name = "default.cronjob.testdata.kubebuilder.io",
        sideEffects = "None",
        timeoutSeconds = 10,
        admissionReviewVersions = "v1;v1beta1",
        reinvocationPolicy = "IfNeeded"
    )]
    const _: () = ();

    pub const GO: &str = "\
// +kubebuilder:webhook:webhookVersions=v1,verbs=create;update,path=/validate-testdata-kubebuilder-io-v1-cronjob,mutating=false,failurePolicy=fail,matchPolicy=Equivalent,groups=testdata.kubebuilder.io,resources=cronjobs,versions=v1,name=validation.cronjob.testdata.kubebuilder.io,sideEffects=None,timeoutSeconds=10,admissionReviewVersions=v1;v1beta1
// +kubebuilder:webhook:verbs=create;update,path=/validate-testdata-kubebuilder-io-v1-cronjob,mutating=false,failurePolicy=fail,matchPolicy=Equivalent,groups=testdata.kubebuilder.io,resources=cronjobs,versions=v1,name=validation.cronjob.testdata.kubebuilder.io,sideEffects=NoneOnDryRun,timeoutSeconds=10,admissionReviewVersions=v1;v1beta1
// +kubebuilder:webhook:webhookVersions=v1,verbs=create;update,path=/mutate-testdata-kubebuilder-io-v1-cronjob,mutating=true,failurePolicy=fail,matchPolicy=Equivalent,groups=testdata.kubebuilder.io,resources=cronjobs,versions=v1,name=default.cronjob.testdata.kubebuilder.io,sideEffects=None,timeoutSeconds=10,admissionReviewVersions=v1;v1beta1,reinvocationPolicy=IfNeeded
";
}

/// `valid-ordered`: sorted by name; `reinvocationPolicy` on validating webhooks is ignored.
mod valid_ordered {
    use super::*;
    #[webhook(
        webhookVersions = "v1",
        verbs = "create;update",
        path = "/validate-testdata-kubebuilder-io-v1-deployments",
        mutating = false,
        failurePolicy = "fail",
        matchPolicy = "Equivalent",
        groups = "testdata.kubebuilder.io",
        resources = "deployments",
        versions = "v1",
        name = "deployment.testdata.kubebuilder.io",
        sideEffects = "None",
        admissionReviewVersions = "v1;v1beta1",
        reinvocationPolicy = "Never"
    )]
    #[webhook(
        webhookVersions = "v1",
        verbs = "create;update",
        path = "/validate-testdata-kubebuilder-io-v1-cronjob",
        mutating = false,
        failurePolicy = "fail",
        matchPolicy = "Equivalent",
        groups = "testdata.kubebuilder.io",
        resources = "cronjobs",
        versions = "v1",
        name = "cronjob.testdata.kubebuilder.io",
        sideEffects = "None",
        admissionReviewVersions = "v1;v1beta1",
        reinvocationPolicy = "Never"
    )]
    #[webhook(
        webhookVersions = "v1",
        verbs = "create;update",
        path = "/validate-testdata-kubebuilder-io-v1-cronjoblist",
        mutating = false,
        failurePolicy = "fail",
        matchPolicy = "Equivalent",
        groups = "testdata.kubebuilder.io",
        resources = "cronjoblist",
        versions = "v1",
        name = "cronjoblist.testdata.kubebuilder.io",
        sideEffects = "None",
        admissionReviewVersions = "v1;v1beta1",
        reinvocationPolicy = "Never"
    )]
    const _: () = ();

    pub const GO: &str = "\
// +kubebuilder:webhook:webhookVersions=v1,verbs=create;update,path=/validate-testdata-kubebuilder-io-v1-deployments,mutating=false,failurePolicy=fail,matchPolicy=Equivalent,groups=testdata.kubebuilder.io,resources=deployments,versions=v1,name=deployment.testdata.kubebuilder.io,sideEffects=None,admissionReviewVersions=v1;v1beta1,reinvocationPolicy=Never
// +kubebuilder:webhook:webhookVersions=v1,verbs=create;update,path=/validate-testdata-kubebuilder-io-v1-cronjob,mutating=false,failurePolicy=fail,matchPolicy=Equivalent,groups=testdata.kubebuilder.io,resources=cronjobs,versions=v1,name=cronjob.testdata.kubebuilder.io,sideEffects=None,admissionReviewVersions=v1;v1beta1,reinvocationPolicy=Never
// +kubebuilder:webhook:webhookVersions=v1,verbs=create;update,path=/validate-testdata-kubebuilder-io-v1-cronjoblist,mutating=false,failurePolicy=fail,matchPolicy=Equivalent,groups=testdata.kubebuilder.io,resources=cronjoblist,versions=v1,name=cronjoblist.testdata.kubebuilder.io,sideEffects=None,admissionReviewVersions=v1;v1beta1,reinvocationPolicy=Never
";
}

/// `valid-url`: `url` instead of a Service.
mod valid_url {
    use super::*;
    #[webhook(
        webhookVersions = "v1",
        verbs = "create;update",
        mutating = false,
        failurePolicy = "fail",
        matchPolicy = "Equivalent",
        groups = "testdata.kubebuilder.io",
        resources = "cronjobs",
        versions = "v1",
        name = "validation.cronjob.testdata.kubebuilder.io",
        sideEffects = "None",
        timeoutSeconds = 10,
        admissionReviewVersions = "v1;v1beta1",
        url = "https://somewebhook:9443/validate-testdata-kubebuilder-io-v1-cronjob"
    )]
    #[webhook(
        url = "https://anothersomewebhook:9443/validate-testdata-kubebuilder-io-v1-cronjob",
        verbs = "create;update",
        mutating = false,
        failurePolicy = "fail",
        matchPolicy = "Equivalent",
        groups = "testdata.kubebuilder.io",
        resources = "cronjobs",
        versions = "v1",
        name = "validation.cronjob.testdata.kubebuilder.io",
        sideEffects = "NoneOnDryRun",
        timeoutSeconds = 10,
        admissionReviewVersions = "v1;v1beta1"
    )]
    #[webhook(
        webhookVersions = "v1",
        verbs = "create;update",
        path = "/mutate-testdata-kubebuilder-io-v1-cronjob",
        mutating = true,
        failurePolicy = "fail",
        matchPolicy = "Equivalent",
        groups = "testdata.kubebuilder.io",
        resources = "cronjobs",
        versions = "v1",
        name = "default.cronjob.testdata.kubebuilder.io",
        sideEffects = "None",
        timeoutSeconds = 10,
        admissionReviewVersions = "v1;v1beta1",
        reinvocationPolicy = "IfNeeded"
    )]
    const _: () = ();

    pub const GO: &str = "\
// +kubebuilder:webhook:webhookVersions=v1,verbs=create;update,mutating=false,failurePolicy=fail,matchPolicy=Equivalent,groups=testdata.kubebuilder.io,resources=cronjobs,versions=v1,name=validation.cronjob.testdata.kubebuilder.io,sideEffects=None,timeoutSeconds=10,admissionReviewVersions=v1;v1beta1,url=\"https://somewebhook:9443/validate-testdata-kubebuilder-io-v1-cronjob\"
// +kubebuilder:webhook:url=\"https://anothersomewebhook:9443/validate-testdata-kubebuilder-io-v1-cronjob\",verbs=create;update,mutating=false,failurePolicy=fail,matchPolicy=Equivalent,groups=testdata.kubebuilder.io,resources=cronjobs,versions=v1,name=validation.cronjob.testdata.kubebuilder.io,sideEffects=NoneOnDryRun,timeoutSeconds=10,admissionReviewVersions=v1;v1beta1
// +kubebuilder:webhook:webhookVersions=v1,verbs=create;update,path=/mutate-testdata-kubebuilder-io-v1-cronjob,mutating=true,failurePolicy=fail,matchPolicy=Equivalent,groups=testdata.kubebuilder.io,resources=cronjobs,versions=v1,name=default.cronjob.testdata.kubebuilder.io,sideEffects=None,timeoutSeconds=10,admissionReviewVersions=v1;v1beta1,reinvocationPolicy=IfNeeded
";
}

/// `valid-custom-service`: Service name, namespace and port.
mod valid_custom_service {
    use super::*;
    #[webhook(
        webhookVersions = "v1",
        verbs = "create;update",
        path = "/validate-testdata-kubebuilder-io-v1-cronjob",
        mutating = false,
        failurePolicy = "fail",
        matchPolicy = "Equivalent",
        groups = "testdata.kubebuiler.io",
        resources = "cronjobs",
        serviceName = "dead",
        serviceNamespace = "beef",
        servicePort = 1234,
        versions = "v1",
        name = "validation.cronjob.testdata.kubebuilder.io",
        sideEffects = "None",
        timeoutSeconds = 10,
        admissionReviewVersions = "v1;v1beta1"
    )]
    #[webhook(
        verbs = "create;update",
        path = "/validate-testdata-kubebuilder-io-v1-cronjob",
        mutating = false,
        failurePolicy = "fail",
        matchPolicy = "Equivalent",
        groups = "testdata.kubebuiler.io",
        resources = "cronjobs",
        versions = "v1",
        name = "validation.cronjob.testdata.kubebuilder.io",
        sideEffects = "NoneOnDryRun",
        timeoutSeconds = 10,
        admissionReviewVersions = "v1;v1beta1"
    )]
    #[webhook(
        webhookVersions = "v1",
        verbs = "create;update",
        path = "/mutate-testdata-kubebuilder-io-v1-cronjob",
        mutating = true,
        failurePolicy = "fail",
        matchPolicy = "Equivalent",
        groups = "testdata.kubebuiler.io",
        resources = "cronjobs",
        serviceName = "foo",
        versions = "v1",
        name = "default.cronjob.testdata.kubebuilder.io",
        sideEffects = "None",
        timeoutSeconds = 10,
        admissionReviewVersions = "v1;v1beta1",
        reinvocationPolicy = "IfNeeded"
    )]
    const _: () = ();

    pub const GO: &str = "\
// +kubebuilder:webhook:webhookVersions=v1,verbs=create;update,path=/validate-testdata-kubebuilder-io-v1-cronjob,mutating=false,failurePolicy=fail,matchPolicy=Equivalent,groups=testdata.kubebuiler.io,resources=cronjobs,serviceName=dead,serviceNamespace=beef,servicePort=1234,versions=v1,name=validation.cronjob.testdata.kubebuilder.io,sideEffects=None,timeoutSeconds=10,admissionReviewVersions=v1;v1beta1
// +kubebuilder:webhook:verbs=create;update,path=/validate-testdata-kubebuilder-io-v1-cronjob,mutating=false,failurePolicy=fail,matchPolicy=Equivalent,groups=testdata.kubebuiler.io,resources=cronjobs,versions=v1,name=validation.cronjob.testdata.kubebuilder.io,sideEffects=NoneOnDryRun,timeoutSeconds=10,admissionReviewVersions=v1;v1beta1
// +kubebuilder:webhook:webhookVersions=v1,verbs=create;update,path=/mutate-testdata-kubebuilder-io-v1-cronjob,mutating=true,failurePolicy=fail,matchPolicy=Equivalent,groups=testdata.kubebuiler.io,resources=cronjobs,serviceName=foo,versions=v1,name=default.cronjob.testdata.kubebuilder.io,sideEffects=None,timeoutSeconds=10,admissionReviewVersions=v1;v1beta1,reinvocationPolicy=IfNeeded
";
}

/// `valid-custom-name`: `webhookconfiguration` names both configurations.
mod valid_custom_name {
    use super::*;
    #[webhook(
        webhookVersions = "v1",
        verbs = "create;update",
        path = "/validate-testdata-kubebuilder-io-v1-cronjob",
        mutating = false,
        failurePolicy = "fail",
        matchPolicy = "Equivalent",
        groups = "testdata.kubebuilder.io",
        resources = "cronjobs",
        versions = "v1",
        name = "validation.cronjob.testdata.kubebuilder.io",
        sideEffects = "None",
        timeoutSeconds = 10,
        admissionReviewVersions = "v1;v1beta1"
    )]
    #[webhook(
        verbs = "create;update",
        path = "/validate-testdata-kubebuilder-io-v1-cronjob",
        mutating = false,
        failurePolicy = "fail",
        matchPolicy = "Equivalent",
        groups = "testdata.kubebuilder.io",
        resources = "cronjobs",
        versions = "v1",
        name = "validation.cronjob.testdata.kubebuilder.io",
        sideEffects = "NoneOnDryRun",
        timeoutSeconds = 10,
        admissionReviewVersions = "v1;v1beta1"
    )]
    #[webhook(
        webhookVersions = "v1",
        verbs = "create;update",
        path = "/mutate-testdata-kubebuilder-io-v1-cronjob",
        mutating = true,
        failurePolicy = "fail",
        matchPolicy = "Equivalent",
        groups = "testdata.kubebuilder.io",
        resources = "cronjobs",
        versions = "v1",
        name = "default.cronjob.testdata.kubebuilder.io",
        sideEffects = "None",
        timeoutSeconds = 10,
        admissionReviewVersions = "v1;v1beta1",
        reinvocationPolicy = "IfNeeded"
    )]
    #[webhook_configuration(mutating = true, name = "foo")]
    #[webhook_configuration(mutating = false, name = "bar")]
    const _: () = ();

    pub const GO: &str = "\
// +kubebuilder:webhook:webhookVersions=v1,verbs=create;update,path=/validate-testdata-kubebuilder-io-v1-cronjob,mutating=false,failurePolicy=fail,matchPolicy=Equivalent,groups=testdata.kubebuilder.io,resources=cronjobs,versions=v1,name=validation.cronjob.testdata.kubebuilder.io,sideEffects=None,timeoutSeconds=10,admissionReviewVersions=v1;v1beta1
// +kubebuilder:webhook:verbs=create;update,path=/validate-testdata-kubebuilder-io-v1-cronjob,mutating=false,failurePolicy=fail,matchPolicy=Equivalent,groups=testdata.kubebuilder.io,resources=cronjobs,versions=v1,name=validation.cronjob.testdata.kubebuilder.io,sideEffects=NoneOnDryRun,timeoutSeconds=10,admissionReviewVersions=v1;v1beta1
// +kubebuilder:webhook:webhookVersions=v1,verbs=create;update,path=/mutate-testdata-kubebuilder-io-v1-cronjob,mutating=true,failurePolicy=fail,matchPolicy=Equivalent,groups=testdata.kubebuilder.io,resources=cronjobs,versions=v1,name=default.cronjob.testdata.kubebuilder.io,sideEffects=None,timeoutSeconds=10,admissionReviewVersions=v1;v1beta1,reinvocationPolicy=IfNeeded
// +kubebuilder:webhookconfiguration:mutating=true,name=foo
// +kubebuilder:webhookconfiguration:mutating=false,name=bar
";
}

/// `valid-namespaceselector`, `valid-objectselector`, `valid-selectors-matchexpressions`,
/// `valid-patch-removal`: the patch merge.
mod valid_patches {
    use super::*;
    #[webhook(
        verbs = "create;update",
        path = "/validate-testdata-kubebuilder-io-v1-cronjob",
        mutating = false,
        failurePolicy = "fail",
        groups = "testdata.kubebuilder.io",
        resources = "cronjobs",
        versions = "v1",
        name = "validation.cronjob.testdata.kubebuilder.io",
        sideEffects = "None",
        admissionReviewVersions = "v1",
        patch = r#"{"namespaceSelector":{"matchLabels":{"webhook-enabled":"true"}}}"#
    )]
    #[webhook(
        verbs = "create;update",
        path = "/mutate-testdata-kubebuilder-io-v1-cronjob",
        mutating = true,
        failurePolicy = "fail",
        groups = "testdata.kubebuilder.io",
        resources = "cronjobs",
        versions = "v1",
        name = "default.cronjob.testdata.kubebuilder.io",
        sideEffects = "None",
        admissionReviewVersions = "v1",
        patch = r#"{"objectSelector":{"matchLabels":{"managed-by":"controller"},"matchExpressions":[{"key":"tier","operator":"In","values":["frontend","backend"]}]}}"#
    )]
    #[webhook(
        verbs = "create;update",
        path = "/validate-v2",
        mutating = false,
        failurePolicy = "fail",
        groups = "testdata.kubebuilder.io",
        resources = "cronjobs",
        versions = "v1",
        name = "expressions.cronjob.testdata.kubebuilder.io",
        sideEffects = "None",
        admissionReviewVersions = "v1",
        patch = r#"{"namespaceSelector":{"matchExpressions":[{"key":"environment","operator":"In","values":["dev","staging","prod"]}]}}"#
    )]
    #[webhook(
        verbs = "create;update",
        path = "/validate-v3",
        mutating = false,
        failurePolicy = "fail",
        groups = "testdata.kubebuilder.io",
        resources = "cronjobs",
        versions = "v1",
        name = "removal.cronjob.testdata.kubebuilder.io",
        sideEffects = "None",
        timeoutSeconds = 10,
        admissionReviewVersions = "v1",
        patch = r#"{"timeoutSeconds":null,"rules":[{"apiGroups":["batch"],"apiVersions":["v1"],"operations":["DELETE"],"resources":["jobs"]}],"matchConditions":[{"name":"not-kube-system","expression":"request.namespace != 'kube-system'"}]}"#
    )]
    const _: () = ();

    pub const GO: &str = r#"
// +kubebuilder:webhook:verbs=create;update,path=/validate-testdata-kubebuilder-io-v1-cronjob,mutating=false,failurePolicy=fail,groups=testdata.kubebuilder.io,resources=cronjobs,versions=v1,name=validation.cronjob.testdata.kubebuilder.io,sideEffects=None,admissionReviewVersions=v1,patch=`{"namespaceSelector":{"matchLabels":{"webhook-enabled":"true"}}}`
// +kubebuilder:webhook:verbs=create;update,path=/mutate-testdata-kubebuilder-io-v1-cronjob,mutating=true,failurePolicy=fail,groups=testdata.kubebuilder.io,resources=cronjobs,versions=v1,name=default.cronjob.testdata.kubebuilder.io,sideEffects=None,admissionReviewVersions=v1,patch=`{"objectSelector":{"matchLabels":{"managed-by":"controller"},"matchExpressions":[{"key":"tier","operator":"In","values":["frontend","backend"]}]}}`
// +kubebuilder:webhook:verbs=create;update,path=/validate-v2,mutating=false,failurePolicy=fail,groups=testdata.kubebuilder.io,resources=cronjobs,versions=v1,name=expressions.cronjob.testdata.kubebuilder.io,sideEffects=None,admissionReviewVersions=v1,patch=`{"namespaceSelector":{"matchExpressions":[{"key":"environment","operator":"In","values":["dev","staging","prod"]}]}}`
// +kubebuilder:webhook:verbs=create;update,path=/validate-v3,mutating=false,failurePolicy=fail,groups=testdata.kubebuilder.io,resources=cronjobs,versions=v1,name=removal.cronjob.testdata.kubebuilder.io,sideEffects=None,timeoutSeconds=10,admissionReviewVersions=v1,patch=`{"timeoutSeconds":null,"rules":[{"apiGroups":["batch"],"apiVersions":["v1"],"operations":["DELETE"],"resources":["jobs"]}],"matchConditions":[{"name":"not-kube-system","expression":"request.namespace != 'kube-system'"}]}`
"#;
}

/// `valid-crosspkg-stable`: two packages; one configuration, sorted by name across them.
mod crosspkg {
    pub mod v1 {
        use kube_markers::webhook;
        #[webhook(
            webhookVersions = "v1",
            verbs = "create;update",
            mutating = false,
            failurePolicy = "fail",
            matchPolicy = "Equivalent",
            groups = "testdata.kubebuilder.io",
            resources = "cronjobs",
            versions = "v1",
            name = "validation.cronjob.testdata.kubebuilder.io",
            sideEffects = "None",
            admissionReviewVersions = "v1;v1beta1",
            path = "/validate-testdata-kubebuilder-io-v1-cronjob"
        )]
        const _: () = ();
        pub const GO: &str = "// +kubebuilder:webhook:webhookVersions=v1,verbs=create;update,mutating=false,failurePolicy=fail,matchPolicy=Equivalent,groups=testdata.kubebuilder.io,resources=cronjobs,versions=v1,name=validation.cronjob.testdata.kubebuilder.io,sideEffects=None,admissionReviewVersions=v1;v1beta1,path=/validate-testdata-kubebuilder-io-v1-cronjob\n";
    }
    pub mod v1alpha1 {
        use kube_markers::webhook;
        #[webhook(
            webhookVersions = "v1",
            verbs = "create;update",
            mutating = false,
            failurePolicy = "fail",
            matchPolicy = "Equivalent",
            groups = "testdata.kubebuilder.io",
            resources = "cronjobs",
            versions = "v1alpha1",
            name = "a.cronjob.testdata.kubebuilder.io",
            sideEffects = "None",
            admissionReviewVersions = "v1;v1beta1",
            path = "/validate-testdata-kubebuilder-io-v1alpha1-cronjob"
        )]
        const _: () = ();
        pub const GO: &str = "// +kubebuilder:webhook:webhookVersions=v1,verbs=create;update,mutating=false,failurePolicy=fail,matchPolicy=Equivalent,groups=testdata.kubebuilder.io,resources=cronjobs,versions=v1alpha1,name=a.cronjob.testdata.kubebuilder.io,sideEffects=None,admissionReviewVersions=v1;v1beta1,path=/validate-testdata-kubebuilder-io-v1alpha1-cronjob\n";
    }
}

const SETS: &[(&str, &[(&str, &str)])] = &[
    ("valid", &[("pkg", valid::GO)]),
    ("valid_ordered", &[("pkg", valid_ordered::GO)]),
    ("valid_url", &[("pkg", valid_url::GO)]),
    ("valid_custom_service", &[("pkg", valid_custom_service::GO)]),
    ("valid_custom_name", &[("pkg", valid_custom_name::GO)]),
    ("valid_patches", &[("pkg", valid_patches::GO)]),
    (
        "crosspkg",
        &[
            ("v1", crosspkg::v1::GO),
            ("v1alpha1", crosspkg::v1alpha1::GO),
        ],
    ),
];

/// Our manifests.yaml for the attributes of one module (and its submodules).
fn ours(set: &str) -> String {
    let prefix = format!("webhook_conformance::{set}");
    let in_set = |module: &str| module == prefix || module.starts_with(&format!("{prefix}::"));
    let webhooks: Vec<_> = webhook_entries()
        .into_iter()
        .map(|e| &e.attribute)
        .filter(|e| in_set(&e.source.module_path))
        .collect();
    let names: Vec<_> = webhook_configuration_entries()
        .into_iter()
        .filter(|e| in_set(&e.source.module_path))
        .collect();
    assert!(!webhooks.is_empty(), "no entries for {set}");
    let merged = configurations(&webhooks, &names).unwrap();
    render(&merged, "")
}

/// controller-gen's manifests.yaml for Go packages holding these marker lines.
pub fn controller_gen_webhooks(bin: &Path, dir: &Path, packages: &[(&str, &str)]) -> String {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(
        dir.join("go.mod"),
        "module example.com/conformance\n\ngo 1.22\n",
    )
    .unwrap();
    for (pkg, markers) in packages {
        std::fs::create_dir_all(dir.join(pkg)).unwrap();
        let source = format!("package {pkg}\n\n{markers}");
        std::fs::write(dir.join(pkg).join("webhook.go"), source).unwrap();
    }
    let out = Command::new(bin)
        .args(["webhook", "paths=./...", "output:webhook:dir=out"])
        .current_dir(dir)
        .env("GOFLAGS", "-mod=mod")
        .output()
        .expect("run controller-gen");
    assert!(
        out.status.success(),
        "controller-gen failed in {}:\n{}",
        dir.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read_to_string(dir.join("out/manifests.yaml")).unwrap_or_default()
}

#[test]
fn valid_sets_snapshots() {
    for (set, _) in SETS {
        insta::assert_snapshot!(format!("webhook_{set}"), ours(set));
    }
}

#[cfg_attr(skip_oracle, ignore = "KUBE_MARKERS_SKIP_ORACLE=1: needs a Go oracle")]
#[test]
fn valid_sets_match_controller_gen_byte_for_byte() {
    let Some(bin) = kube_markers_tests::oracle("controller-gen.sh") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    for (set, packages) in SETS {
        let theirs = controller_gen_webhooks(&bin, &tmp.path().join(set), packages);
        let mine = ours(set);
        assert!(
            theirs == mine,
            "{set} differs from controller-gen.\n--- controller-gen\n{theirs}\n--- kube-markers\n{mine}"
        );
    }
}
