//! `spec/`'s files import one another without a circle: read from the
//! sources themselves (each file's `use` lines and `super::` /
//! `crate::spec::` paths before its tests), every name followed through
//! `pub use` re-exports to the file that defines it. A `pub use` only
//! re-exports unless the file itself also uses the name.

use std::collections::{BTreeMap, BTreeSet};

/// Every file of `spec/` but the tests, by module path.
const FILES: &[(&str, &str)] = &[
    ("spec", include_str!("mod.rs")),
    ("spec::check", include_str!("check.rs")),
    ("spec::cost", include_str!("cost.rs")),
    ("spec::error", include_str!("error.rs")),
    ("spec::estimate", include_str!("estimate.rs")),
    ("spec::graph", include_str!("graph.rs")),
    ("spec::hosts", include_str!("hosts.rs")),
    ("spec::limits", include_str!("limits.rs")),
    ("spec::link", include_str!("link.rs")),
    ("spec::metrics", include_str!("metrics.rs")),
    ("spec::radon", include_str!("radon.rs")),
    ("spec::resolve", include_str!("resolve.rs")),
    ("spec::routing", include_str!("routing.rs")),
    ("spec::switches", include_str!("switches.rs")),
    ("spec::tagged", include_str!("tagged.rs")),
    ("spec::tcp", include_str!("tcp.rs")),
    ("spec::topology", include_str!("topology.rs")),
    ("spec::units_serde", include_str!("units_serde.rs")),
    ("spec::workloads", include_str!("workloads.rs")),
    ("spec::queues", include_str!("queues/mod.rs")),
    ("spec::queues::drr", include_str!("queues/drr.rs")),
    ("spec::queues::hcf", include_str!("queues/hcf.rs")),
    ("spec::queues::priority", include_str!("queues/priority.rs")),
    ("spec::queues::red", include_str!("queues/red.rs")),
    ("spec::queues::sfq", include_str!("queues/sfq.rs")),
    ("spec::queues::shaper", include_str!("queues/shaper.rs")),
    ("spec::lower", include_str!("lower/mod.rs")),
    ("spec::lower::netns", include_str!("lower/netns.rs")),
    (
        "spec::lower::netns::radon",
        include_str!("lower/netns/radon.rs"),
    ),
    ("spec::lower::radon", include_str!("lower/radon.rs")),
    (
        "spec::lower::netns::pcap",
        include_str!("lower/netns/pcap.rs"),
    ),
    ("spec::lower::ns2", include_str!("lower/ns2.rs")),
    ("spec::lower::sim", include_str!("lower/sim.rs")),
    ("spec::lower::sim::bulk", include_str!("lower/sim/bulk.rs")),
    (
        "spec::lower::sim::radon",
        include_str!("lower/sim/radon.rs"),
    ),
    (
        "spec::lower::sim::common",
        include_str!("lower/sim/common.rs"),
    ),
    (
        "spec::lower::sim::endpoints",
        include_str!("lower/sim/endpoints.rs"),
    ),
    (
        "spec::lower::sim::incast",
        include_str!("lower/sim/incast.rs"),
    ),
    (
        "spec::lower::sim::network",
        include_str!("lower/sim/network.rs"),
    ),
    (
        "spec::lower::sim::nfs_read",
        include_str!("lower/sim/nfs_read.rs"),
    ),
    ("spec::lower::sim::pcap", include_str!("lower/sim/pcap.rs")),
    (
        "spec::lower::sim::ports",
        include_str!("lower/sim/ports.rs"),
    ),
    (
        "spec::lower::sim::queues",
        include_str!("lower/sim/queues.rs"),
    ),
    (
        "spec::lower::sim::short",
        include_str!("lower/sim/short.rs"),
    ),
    ("spec::lower::sim::udp", include_str!("lower/sim/udp.rs")),
];

/// A file's code before its tests, without comments.
fn code(src: &str) -> String {
    let body = src.split("#[cfg(test)]").next().unwrap_or("");
    body.lines()
        .map(|l| match l.find("//") {
            Some(i) => &l[..i],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The paths a use tree names: `a::{b, c::{d, e as f}}` gives `a::b`,
/// `a::c::d`, `a::c::e as f`.
fn expand(tree: &str) -> Vec<String> {
    let tree: String = tree.split_whitespace().collect::<Vec<_>>().join(" ");
    let Some(open) = tree.find('{') else {
        return vec![tree.trim().to_string()];
    };
    let prefix = &tree[..open];
    let inner = &tree[open + 1..tree.rfind('}').expect("a closing brace")];
    let (mut parts, mut depth, mut start) = (Vec::new(), 0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    parts
        .into_iter()
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .flat_map(|p| expand(&format!("{prefix}{p}")))
        .collect()
}

/// A `use` of a file: is it `pub`, the path, the local name.
type Use = (bool, String, String);

/// A file's `use` statements, and its code with them taken out.
fn uses(code: &str) -> (Vec<Use>, String) {
    let (mut out, mut rest) = (Vec::new(), String::new());
    let mut text = code;
    while let Some(i) = text.find("use ") {
        let line_start = text[..i].rfind('\n').map_or(0, |j| j + 1);
        let lead = text[line_start..i].trim();
        if !(lead.is_empty() || lead == "pub" || lead.starts_with("pub(")) {
            rest.push_str(&text[..i + 4]);
            text = &text[i + 4..];
            continue;
        }
        rest.push_str(&text[..line_start]);
        let end = i + text[i..].find(';').expect("a use ends");
        for p in expand(&text[i + 4..end]) {
            let (path, name) = match p.split_once(" as ") {
                Some((a, b)) => (a.trim().to_string(), b.trim().to_string()),
                None => (p.clone(), p.rsplit("::").next().unwrap_or("").to_string()),
            };
            out.push((!lead.is_empty(), path, name));
        }
        text = &text[end + 1..];
    }
    rest.push_str(text);
    (out, rest)
}

/// `super::x::y` and `crate::spec::x` paths written in code.
fn inline_paths(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    for start in ["super::", "crate::spec::"] {
        for (i, _) in code.match_indices(start) {
            if code[..i].ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let tail = &code[i..];
            let end = tail
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .unwrap_or(tail.len());
            out.push(tail[..end].trim_end_matches(':').to_string());
        }
    }
    out
}

struct Tree {
    /// Per module: its `pub use` names, to their paths.
    exports: BTreeMap<String, BTreeMap<String, String>>,
}

impl Tree {
    /// The module (of `FILES`) defining what `path`, written in module
    /// `at`, names; `None` outside `spec`.
    fn resolve(&self, at: &str, path: &str) -> Option<String> {
        let mut segs: Vec<&str> = path.split("::").collect();
        let mut module: Vec<String> = match *segs.first()? {
            "super" => {
                segs.remove(0);
                let mut m: Vec<String> = at.split("::").map(String::from).collect();
                m.pop();
                m
            }
            "crate" => {
                segs.remove(0);
                vec!["crate".into()]
            }
            "self" => {
                segs.remove(0);
                at.split("::").map(String::from).collect()
            }
            _ => return None, // another crate, or a name of this file's own
        };
        if module.first().map(String::as_str) == Some("crate") {
            module.remove(0);
            if segs.first() != Some(&"spec") {
                return None;
            }
        }
        for (k, seg) in segs.iter().enumerate() {
            let child = if module.is_empty() {
                seg.to_string()
            } else {
                format!("{}::{seg}", module.join("::"))
            };
            if self.exports.contains_key(&child) {
                module = child.split("::").map(String::from).collect();
                continue;
            }
            let here = module.join("::");
            // An item of `here`: followed if `here` re-exports it.
            // (A macro's `pub(crate) use` re-exports itself.)
            let own = format!("self::{seg}");
            if let Some(target) = self.exports.get(&here)?.get(*seg).filter(|t| **t != own) {
                let rest = segs[k + 1..].join("::");
                let target = if rest.is_empty() {
                    target.clone()
                } else {
                    format!("{target}::{rest}")
                };
                return self.resolve(&here, &target).or(Some(here));
            }
            return Some(here).filter(|h| h.starts_with("spec"));
        }
        Some(module.join("::")).filter(|h| h.starts_with("spec"))
    }
}

/// A `pub use` path relative to its module, made absolute.
fn absolute(path: &str) -> String {
    if path.starts_with("super::") || path.starts_with("crate::") || path.starts_with("self::") {
        path.to_string()
    } else {
        format!("self::{path}")
    }
}

fn edges() -> BTreeMap<String, BTreeSet<String>> {
    let mut tree = Tree {
        exports: BTreeMap::new(),
    };
    let parsed: Vec<(&str, Vec<Use>, String)> = FILES
        .iter()
        .map(|(m, src)| {
            let (u, rest) = uses(&code(src));
            (*m, u, rest)
        })
        .collect();
    for (m, u, _) in &parsed {
        let ex = u
            .iter()
            .filter(|(p, _, _)| *p)
            .map(|(_, path, name)| (name.clone(), absolute(path)))
            .collect();
        tree.exports.insert(m.to_string(), ex);
    }
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (m, u, rest) in &parsed {
        let words: BTreeSet<&str> = rest
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .collect();
        let mut paths: Vec<String> = u
            .iter()
            .filter(|(p, _, name)| !*p || words.contains(name.as_str()))
            .map(|(_, path, _)| absolute(path))
            .collect();
        paths.extend(inline_paths(rest));
        let to = graph.entry(m.to_string()).or_default();
        for p in paths {
            if let Some(t) = tree.resolve(m, &p) {
                if t != *m {
                    to.insert(t);
                }
            }
        }
    }
    graph
}

/// A circle of `graph`, if any.
fn circle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        n: &str,
        g: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        match state.get(n) {
            Some(2) => return None,
            Some(1) => {
                let i = stack.iter().position(|s| s == n).unwrap_or(0);
                let mut c = stack[i..].to_vec();
                c.push(n.to_string());
                return Some(c);
            }
            _ => {}
        }
        state.insert(n.to_string(), 1);
        stack.push(n.to_string());
        for m in g.get(n).into_iter().flatten() {
            if let Some(c) = visit(m, g, state, stack) {
                return Some(c);
            }
        }
        stack.pop();
        state.insert(n.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for n in graph.keys() {
        if let Some(c) = visit(n, graph, &mut state, &mut Vec::new()) {
            return Some(c);
        }
    }
    None
}

#[test]
fn the_reader_sees_uses_re_exports_and_paths() {
    assert_eq!(
        expand("super::{a, b::{c, d as e}}"),
        ["super::a", "super::b::c", "super::b::d as e"]
    );
    let g = edges();
    let at = |m: &str| g.get(m).cloned().unwrap_or_default();
    // A name re-exported by mod.rs leads to the file that defines it.
    assert!(
        at("spec::lower::sim::queues").contains("spec::queues"),
        "{g:?}"
    );
    assert!(at("spec::resolve").contains("spec"), "{g:?}");
    assert!(at("spec::topology").contains("spec::check"), "{g:?}");
    let looped: BTreeMap<String, BTreeSet<String>> = [("a", "b"), ("b", "c"), ("c", "a")]
        .iter()
        .map(|(x, y)| (x.to_string(), BTreeSet::from([y.to_string()])))
        .collect();
    assert_eq!(circle(&looped).map(|c| c.len()), Some(4));
}

#[test]
fn spec_files_import_each_other_without_a_circle() {
    let g = edges();
    assert_eq!(circle(&g), None, "a circle; the graph: {g:#?}");
    // The field checkers are the bottom: they import no other spec file
    // but the error type.
    let check = g.get("spec::check").cloned().unwrap_or_default();
    assert!(
        check.iter().all(|m| m == "spec::error"),
        "check.rs imports {check:?}"
    );
}

/// Every source file under `spec/` (tests aside) is among [`FILES`]: a
/// new file left out would escape the circle check.
#[test]
fn every_spec_file_is_read() {
    fn walk(dir: &std::path::Path, out: &mut Vec<String>) {
        for e in std::fs::read_dir(dir).expect("spec/ is readable") {
            let p = e.expect("an entry").path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p.to_string_lossy().into_owned());
            }
        }
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/spec");
    let mut files = Vec::new();
    walk(&root, &mut files);
    let prefix = format!("{}/", root.to_string_lossy());
    let module = |f: &str| -> String {
        let rel = f.trim_start_matches(&prefix).trim_end_matches(".rs");
        let rel = rel.trim_end_matches("/mod").trim_end_matches("mod");
        let m = rel.replace('/', "::");
        if m.is_empty() {
            "spec".into()
        } else {
            format!("spec::{m}")
        }
    };
    let known: BTreeSet<&str> = FILES.iter().map(|(m, _)| *m).collect();
    let missing: Vec<String> = files
        .iter()
        .filter(|f| !f.ends_with("_test.rs") && !f.ends_with("/tests.rs"))
        .map(|f| module(f))
        .filter(|m| !known.contains(m.as_str()))
        .collect();
    assert!(missing.is_empty(), "not in FILES: {missing:?}");
}
