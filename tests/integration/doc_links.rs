//! Every relative link of README.md, docs/*.md and results/README.md names a file or folder of the repository,
//! and a link to a heading of a Markdown file (`file.md#anchor`, or `#anchor` within the page) names a heading
//! that file has (GitHub's anchors: lower case, punctuation dropped, spaces to `-`).

use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The pages checked: the README, every chapter of docs/ and the results index.
fn pages() -> Vec<PathBuf> {
    let mut v = vec![root().join("README.md"), root().join("results/README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .expect("docs/")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    docs.sort();
    assert!(docs.len() >= 10, "{} chapters in docs/", docs.len());
    v.extend(docs);
    v
}

/// The targets of the inline links `[text](target)` of a Markdown text, outside code spans and code blocks.
fn links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        // drop code spans, whose brackets are not links
        let mut plain = String::new();
        for (i, part) in line.split('`').enumerate() {
            if i % 2 == 0 {
                plain.push_str(part);
            }
        }
        let mut rest = plain.as_str();
        while let Some(i) = rest.find("](") {
            let after = &rest[i + 2..];
            let Some(j) = after.find(')') else { break };
            out.push(after[..j].to_string());
            rest = &after[j..];
        }
    }
    out
}

/// GitHub's anchor of a heading: lower case, letters, digits, `-` and `_` kept, spaces to `-`, the rest dropped.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a Markdown file's headings (outside code blocks).
fn anchors(text: &str) -> Vec<String> {
    let mut fenced = false;
    let mut v = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            v.push(anchor(line.trim_start_matches('#')));
        }
    }
    v
}

#[test]
fn anchors_follow_github() {
    assert_eq!(
        anchor(" Sweeps, shards and batch clusters"),
        "sweeps-shards-and-batch-clusters"
    );
    assert_eq!(anchor(" Seed 000, admission"), "seed-000-admission");
    assert_eq!(
        anchor(" Reservations (seed 004): `packlab era run`"),
        "reservations-seed-004-packlab-era-run"
    );
    assert_eq!(
        links("see [a](x.md#b) and `[c](y)` [d](../e/)"),
        ["x.md#b", "../e/"]
    );
}

#[test]
fn every_relative_link_resolves() {
    let mut checked = 0;
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        let name = page.strip_prefix(root()).unwrap().display().to_string();
        for link in links(&text) {
            if link.contains("://") || link.starts_with("mailto:") {
                continue;
            }
            let (path, frag) = link.split_once('#').unwrap_or((&link, ""));
            let target = if path.is_empty() {
                page.clone()
            } else {
                page.parent().unwrap().join(path)
            };
            assert!(target.exists(), "{name}: the link ({link}) names no file");
            if !frag.is_empty() {
                assert!(
                    target.extension().is_some_and(|x| x == "md"),
                    "{name}: ({link}) has an anchor but is no Markdown file"
                );
                let heads = anchors(&std::fs::read_to_string(&target).unwrap());
                assert!(
                    heads.iter().any(|h| h == frag),
                    "{name}: ({link}) names no heading of {path} (headings: {heads:?})"
                );
            }
            checked += 1;
        }
    }
    assert!(checked >= 50, "{checked} links");
}

/// The README stays a page a newcomer reads: short, and no line longer than 160 characters.
#[test]
fn readme_is_short() {
    let text = std::fs::read_to_string(root().join("README.md")).unwrap();
    let n = text.lines().count();
    assert!(n <= 250, "README.md has {n} lines");
    for (i, l) in text.lines().enumerate() {
        assert!(
            l.chars().count() <= 160,
            "README.md:{}: {} characters",
            i + 1,
            l.chars().count()
        );
    }
}

/// Every model of the registry has its chapter `docs/<id>.md`, listed in docs/README.md and in the README's model
/// table (with its command group `packlab <id>`), and a section in results/README.md linking that chapter.
#[test]
fn every_registered_model_has_its_chapter() {
    let read =
        |p: &str| std::fs::read_to_string(root().join(p)).unwrap_or_else(|e| panic!("{p}: {e}"));
    let (readme, index, results) = (
        read("README.md"),
        read("docs/README.md"),
        read("results/README.md"),
    );
    assert_eq!(packlab::models::MODELS.len(), 5);
    for m in packlab::models::MODELS {
        let chapter = format!("docs/{}.md", m.id);
        let text = read(&chapter);
        for part in [
            "## Parameters",
            "## Experiments",
            "## Reading the results",
            "## Limits",
            "ALGORITHMS.md §",
        ] {
            assert!(text.contains(part), "{chapter} lacks {part:?}");
        }
        assert!(
            index.contains(&format!("]({}.md)", m.id)),
            "docs/README.md does not list {chapter}"
        );
        assert!(
            readme.contains(&format!("| `{}` |", m.id))
                && readme.contains(&format!("]({chapter})")),
            "README.md's model table lacks {}",
            m.id
        );
        assert!(
            results.contains(&format!("](../{chapter})")),
            "results/README.md does not link {chapter}"
        );
    }
}
