//! CRD generation for 100 kinds of 50 fields each (kube-derive's schema, the `#[k8s]`
//! patches, merging, structural checks, YAML): `cargo bench -p kube-markers-codegen --bench crds`.

use kube::CustomResource;
use kube_markers::registry::crd_entries;
use kube_markers_codegen::generate::crds::generate_crds;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

fn main() {
    divan::main();
}

/// An item of a list-map.
#[kube_markers::schema]
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub struct Item {
    /// Key.
    pub name: String,
    /// Value.
    #[k8s(minimum = 0)]
    pub value: i32,
}

macro_rules! kinds {
    ($($spec:ident $kind:literal),* $(,)?) => { $(
        #[kube_markers::crd]
        #[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
        #[kube(group = "bench.example.com", version = "v1", kind = $kind, namespaced)]
        #[k8s(validation(rule = "self.f0 <= 100", message = "f0 too large"))]
        pub struct $spec {
        /// Field number 0, of type `i32`.
        #[k8s(minimum = 0, maximum = 100)]
        pub f0: i32,
        /// Field number 1, of type `String`.
        #[k8s(min_length = 1, max_length = 63, pattern = "^[a-z0-9-]+$")]
        pub f1: String,
        /// Field number 2, of type `Option<String>`.
        pub f2: Option<String>,
        /// Field number 3, of type `Vec<String>`.
        #[k8s(max_items = 10, list_type = "set", items(max_length = 20))]
        pub f3: Vec<String>,
        /// Field number 4, of type `BTreeMap<String, String>`.
        #[k8s(max_properties = 20)]
        pub f4: BTreeMap<String, String>,
        /// Field number 5, of type `Option<i64>`.
        pub f5: Option<i64>,
        /// Field number 6, of type `bool`.
        pub f6: bool,
        /// Field number 7, of type `Vec<Item>`.
        #[k8s(list_type = "map", list_map_keys = ["name"])]
        pub f7: Vec<Item>,
        /// Field number 8, of type `Option<Item>`.
        pub f8: Option<Item>,
        /// Field number 9, of type `f64`.
        pub f9: f64,
        /// Field number 10, of type `i32`.
        #[k8s(minimum = 0, maximum = 100)]
        pub f10: i32,
        /// Field number 11, of type `String`.
        #[k8s(min_length = 1, max_length = 63, pattern = "^[a-z0-9-]+$")]
        pub f11: String,
        /// Field number 12, of type `Option<String>`.
        pub f12: Option<String>,
        /// Field number 13, of type `Vec<String>`.
        #[k8s(max_items = 10, list_type = "set", items(max_length = 20))]
        pub f13: Vec<String>,
        /// Field number 14, of type `BTreeMap<String, String>`.
        #[k8s(max_properties = 20)]
        pub f14: BTreeMap<String, String>,
        /// Field number 15, of type `Option<i64>`.
        pub f15: Option<i64>,
        /// Field number 16, of type `bool`.
        pub f16: bool,
        /// Field number 17, of type `Vec<Item>`.
        #[k8s(list_type = "map", list_map_keys = ["name"])]
        pub f17: Vec<Item>,
        /// Field number 18, of type `Option<Item>`.
        pub f18: Option<Item>,
        /// Field number 19, of type `f64`.
        pub f19: f64,
        /// Field number 20, of type `i32`.
        #[k8s(minimum = 0, maximum = 100)]
        pub f20: i32,
        /// Field number 21, of type `String`.
        #[k8s(min_length = 1, max_length = 63, pattern = "^[a-z0-9-]+$")]
        pub f21: String,
        /// Field number 22, of type `Option<String>`.
        pub f22: Option<String>,
        /// Field number 23, of type `Vec<String>`.
        #[k8s(max_items = 10, list_type = "set", items(max_length = 20))]
        pub f23: Vec<String>,
        /// Field number 24, of type `BTreeMap<String, String>`.
        #[k8s(max_properties = 20)]
        pub f24: BTreeMap<String, String>,
        /// Field number 25, of type `Option<i64>`.
        pub f25: Option<i64>,
        /// Field number 26, of type `bool`.
        pub f26: bool,
        /// Field number 27, of type `Vec<Item>`.
        #[k8s(list_type = "map", list_map_keys = ["name"])]
        pub f27: Vec<Item>,
        /// Field number 28, of type `Option<Item>`.
        pub f28: Option<Item>,
        /// Field number 29, of type `f64`.
        pub f29: f64,
        /// Field number 30, of type `i32`.
        #[k8s(minimum = 0, maximum = 100)]
        pub f30: i32,
        /// Field number 31, of type `String`.
        #[k8s(min_length = 1, max_length = 63, pattern = "^[a-z0-9-]+$")]
        pub f31: String,
        /// Field number 32, of type `Option<String>`.
        pub f32: Option<String>,
        /// Field number 33, of type `Vec<String>`.
        #[k8s(max_items = 10, list_type = "set", items(max_length = 20))]
        pub f33: Vec<String>,
        /// Field number 34, of type `BTreeMap<String, String>`.
        #[k8s(max_properties = 20)]
        pub f34: BTreeMap<String, String>,
        /// Field number 35, of type `Option<i64>`.
        pub f35: Option<i64>,
        /// Field number 36, of type `bool`.
        pub f36: bool,
        /// Field number 37, of type `Vec<Item>`.
        #[k8s(list_type = "map", list_map_keys = ["name"])]
        pub f37: Vec<Item>,
        /// Field number 38, of type `Option<Item>`.
        pub f38: Option<Item>,
        /// Field number 39, of type `f64`.
        pub f39: f64,
        /// Field number 40, of type `i32`.
        #[k8s(minimum = 0, maximum = 100)]
        pub f40: i32,
        /// Field number 41, of type `String`.
        #[k8s(min_length = 1, max_length = 63, pattern = "^[a-z0-9-]+$")]
        pub f41: String,
        /// Field number 42, of type `Option<String>`.
        pub f42: Option<String>,
        /// Field number 43, of type `Vec<String>`.
        #[k8s(max_items = 10, list_type = "set", items(max_length = 20))]
        pub f43: Vec<String>,
        /// Field number 44, of type `BTreeMap<String, String>`.
        #[k8s(max_properties = 20)]
        pub f44: BTreeMap<String, String>,
        /// Field number 45, of type `Option<i64>`.
        pub f45: Option<i64>,
        /// Field number 46, of type `bool`.
        pub f46: bool,
        /// Field number 47, of type `Vec<Item>`.
        #[k8s(list_type = "map", list_map_keys = ["name"])]
        pub f47: Vec<Item>,
        /// Field number 48, of type `Option<Item>`.
        pub f48: Option<Item>,
        /// Field number 49, of type `f64`.
        pub f49: f64,
        }
    )* };
}

kinds!(
    K000Spec "K000",
    K001Spec "K001",
    K002Spec "K002",
    K003Spec "K003",
    K004Spec "K004",
    K005Spec "K005",
    K006Spec "K006",
    K007Spec "K007",
    K008Spec "K008",
    K009Spec "K009",
    K010Spec "K010",
    K011Spec "K011",
    K012Spec "K012",
    K013Spec "K013",
    K014Spec "K014",
    K015Spec "K015",
    K016Spec "K016",
    K017Spec "K017",
    K018Spec "K018",
    K019Spec "K019",
    K020Spec "K020",
    K021Spec "K021",
    K022Spec "K022",
    K023Spec "K023",
    K024Spec "K024",
    K025Spec "K025",
    K026Spec "K026",
    K027Spec "K027",
    K028Spec "K028",
    K029Spec "K029",
    K030Spec "K030",
    K031Spec "K031",
    K032Spec "K032",
    K033Spec "K033",
    K034Spec "K034",
    K035Spec "K035",
    K036Spec "K036",
    K037Spec "K037",
    K038Spec "K038",
    K039Spec "K039",
    K040Spec "K040",
    K041Spec "K041",
    K042Spec "K042",
    K043Spec "K043",
    K044Spec "K044",
    K045Spec "K045",
    K046Spec "K046",
    K047Spec "K047",
    K048Spec "K048",
    K049Spec "K049",
    K050Spec "K050",
    K051Spec "K051",
    K052Spec "K052",
    K053Spec "K053",
    K054Spec "K054",
    K055Spec "K055",
    K056Spec "K056",
    K057Spec "K057",
    K058Spec "K058",
    K059Spec "K059",
    K060Spec "K060",
    K061Spec "K061",
    K062Spec "K062",
    K063Spec "K063",
    K064Spec "K064",
    K065Spec "K065",
    K066Spec "K066",
    K067Spec "K067",
    K068Spec "K068",
    K069Spec "K069",
    K070Spec "K070",
    K071Spec "K071",
    K072Spec "K072",
    K073Spec "K073",
    K074Spec "K074",
    K075Spec "K075",
    K076Spec "K076",
    K077Spec "K077",
    K078Spec "K078",
    K079Spec "K079",
    K080Spec "K080",
    K081Spec "K081",
    K082Spec "K082",
    K083Spec "K083",
    K084Spec "K084",
    K085Spec "K085",
    K086Spec "K086",
    K087Spec "K087",
    K088Spec "K088",
    K089Spec "K089",
    K090Spec "K090",
    K091Spec "K091",
    K092Spec "K092",
    K093Spec "K093",
    K094Spec "K094",
    K095Spec "K095",
    K096Spec "K096",
    K097Spec "K097",
    K098Spec "K098",
    K099Spec "K099",
);

#[divan::bench(sample_count = 10)]
fn generate_100_crds_of_50_fields(bencher: divan::Bencher) {
    let entries = crd_entries();
    assert_eq!(entries.len(), 100);
    bencher.bench(|| {
        let crds = generate_crds(&entries).expect("valid CRDs");
        crds.iter()
            .map(|crd| kube_markers_codegen::render_crd(crd, "").len())
            .sum::<usize>()
    });
}
