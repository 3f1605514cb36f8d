//! The layers of the workspace, read from its manifests (ARCHITECTURE.md, "Folders and
//! layers"): every arrow between Ludus crates points down, and the crate graph drawn in
//! ARCHITECTURE.md is the one the manifests declare.
//!
//! The folders, bottom to top: `proto` (the contract); `libs/*` and `games/*`, two
//! independent stacks on it; `services/*`; `gateway` and `clients/*`; `ludus` (the composition
//! root); `tests`. A crate may depend on crates of a lower layer and, inside `libs/` or
//! `games/`, on its own folder; never on a crate of its own layer elsewhere (no service on
//! another service, no library on a game) nor on one above it. Only normal and build
//! dependencies are arrows: a dev-dependency is a test's business.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The quoted strings of the root manifest's `members = [...]`.
fn members() -> Vec<String> {
    let manifest = read(&root().join("Cargo.toml"));
    let start = manifest
        .find("members = [")
        .expect("the root manifest lists its members");
    let list = &manifest[start..];
    let list = &list[..list.find(']').expect("the members list ends")];
    list.lines()
        .map(|line| line.split('#').next().unwrap_or_default().trim())
        .filter_map(|line| line.strip_prefix('"')?.split('"').next())
        .map(str::to_owned)
        .collect()
}

/// A crate's name and the `ludus*` crates its normal and build dependencies name.
fn manifest(folder: &str) -> (String, BTreeSet<String>) {
    let text = read(&root().join(folder).join("Cargo.toml"));
    let mut section = String::new();
    let mut name = None;
    let mut deps = BTreeSet::new();
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            section = line.trim_matches(['[', ']']).to_owned();
            continue;
        }
        if section == "package"
            && name.is_none()
            && let Some(value) = line.strip_prefix("name = ")
        {
            name = Some(value.trim_matches('"').to_owned());
        }
        let arrows = section == "dependencies"
            || section == "build-dependencies"
            || (section.starts_with("target.") && !section.ends_with("dev-dependencies"));
        if arrows && line.starts_with("ludus") {
            let key: String = line
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                .collect();
            deps.insert(key);
        }
    }
    (
        name.unwrap_or_else(|| panic!("{folder}/Cargo.toml names no package")),
        deps,
    )
}

/// A folder's layer (higher is further from the contract) and the group a crate may depend
/// on inside its own layer (`None`: nothing of its own layer).
fn layer(folder: &str) -> (u8, Option<&'static str>) {
    match folder.split('/').next().unwrap_or(folder) {
        "proto" => (0, None),
        "libs" => (1, Some("libs")),
        "games" => (1, Some("games")),
        "services" => (2, None),
        "gateway" | "clients" => (3, None),
        "ludus" => (4, None),
        "tests" => (5, None),
        other => panic!(
            "{folder}: the folder `{other}` has no layer: give it one here and in ARCHITECTURE.md"
        ),
    }
}

fn graph() -> (BTreeMap<String, String>, BTreeMap<String, BTreeSet<String>>) {
    let mut folder_of = BTreeMap::new();
    let mut edges = BTreeMap::new();
    for folder in members() {
        let (name, deps) = manifest(&folder);
        folder_of.insert(name.clone(), folder);
        edges.insert(name, deps);
    }
    (folder_of, edges)
}

#[test]
fn every_arrow_between_ludus_crates_points_down() {
    let (folder_of, edges) = graph();
    assert!(
        folder_of.len() >= 20,
        "the members list was not read: {folder_of:?}"
    );
    let mut wrong = Vec::new();
    for (from, deps) in &edges {
        let (from_layer, from_group) = layer(&folder_of[from]);
        for to in deps {
            let Some(to_folder) = folder_of.get(to) else {
                wrong.push(format!("{from} -> {to}: not a workspace member"));
                continue;
            };
            let (to_layer, _) = layer(to_folder);
            let same_group = from_group.is_some_and(|group| to_folder.starts_with(group));
            if to_layer > from_layer || (to_layer == from_layer && !same_group) {
                wrong.push(format!(
                    "{from} ({}) -> {to} ({to_folder})",
                    folder_of[from]
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "arrows that do not point down:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn only_the_root_and_the_tests_link_the_gateway_or_a_client() {
    let (folder_of, edges) = graph();
    for (from, deps) in &edges {
        for to in deps {
            let to_folder = &folder_of[to];
            if to_folder == "gateway" || to_folder.starts_with("clients/") {
                assert!(
                    matches!(folder_of[from].as_str(), "ludus" | "tests"),
                    "{from} links {to}: only the composition root may"
                );
            }
        }
    }
}

/// Every crate reachable from each crate, following `edges`.
fn closure(edges: &BTreeMap<String, BTreeSet<String>>) -> BTreeMap<String, BTreeSet<String>> {
    edges
        .keys()
        .map(|start| {
            let mut seen = BTreeSet::new();
            let mut stack: Vec<&String> = edges[start].iter().collect();
            while let Some(next) = stack.pop() {
                if seen.insert(next.clone()) {
                    stack.extend(edges.get(next).into_iter().flatten());
                }
            }
            (start.clone(), seen)
        })
        .collect()
}

/// ARCHITECTURE.md's crate graph: the `a --> b` lines of the mermaid block under the heading
/// "Crate graph", one arrow a line, each node the crate's name with `_` for `-` (mermaid ids).
fn drawn() -> BTreeMap<String, BTreeSet<String>> {
    let doc = read(&root().join("ARCHITECTURE.md"));
    let start = doc
        .find("### Crate graph")
        .expect("ARCHITECTURE.md has a \"### Crate graph\" section");
    let block = &doc[start..];
    let block = &block[block
        .find("```mermaid")
        .expect("the crate graph is a mermaid block")..];
    let block = &block[..block[3..].find("```").expect("the mermaid block ends") + 3];
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for line in block.lines() {
        if let Some((from, to)) = line.split_once("-->") {
            let crate_name = |id: &str| id.trim().replace('_', "-");
            edges
                .entry(crate_name(from))
                .or_default()
                .insert(crate_name(to));
        }
    }
    edges
}

#[test]
fn architecture_draws_the_crate_graph_the_manifests_declare() {
    let (_, declared) = graph();
    let drawn = drawn();
    for (from, tos) in &drawn {
        for to in tos {
            assert!(
                declared.get(from).is_some_and(|deps| deps.contains(to)),
                "ARCHITECTURE.md draws {from} --> {to}, which no manifest declares"
            );
        }
    }
    // The drawing may leave out an arrow another path implies (it is drawn reduced), but what
    // each crate reaches must be the same.
    let mut complete = drawn.clone();
    for name in declared.keys() {
        complete.entry(name.clone()).or_default();
    }
    let (reach_drawn, reach_declared) = (closure(&complete), closure(&declared));
    for (name, reached) in &reach_declared {
        let missing: Vec<_> = reached.difference(&reach_drawn[name]).collect();
        assert!(
            missing.is_empty(),
            "ARCHITECTURE.md's crate graph: {name} also reaches {missing:?}"
        );
    }
}
