//! Query files to queries: a file holds one graph, or (GSI) several, named `FILE#INDEX`.

use std::path::Path;

use anyhow::{anyhow, Result};
use gsi_graph::formats::{read_graphs, ReadOptions};
use gsi_graph::Graph;

/// One query to answer: its name, and its graph or why it could not be read.
pub struct Query {
    pub name: String,
    pub graph: Result<Graph>,
}

/// The name of graph `index` of a file holding `count` graphs.
pub fn query_name(path: &Path, index: usize, count: usize) -> String {
    if count == 1 {
        path.display().to_string()
    } else {
        format!("{}#{index}", path.display())
    }
}

/// The queries of one file; a file that cannot be read gives one query that failed.
pub fn read_query_file(path: &Path, options: &ReadOptions) -> Vec<Query> {
    let name = path.display().to_string();
    match read_graphs(path, options) {
        Ok(graphs) if graphs.is_empty() => vec![Query {
            graph: Err(anyhow!("reading query {name}: the file holds no graph")),
            name,
        }],
        Ok(graphs) => {
            let count = graphs.len();
            graphs
                .into_iter()
                .enumerate()
                .map(|(i, loaded)| Query {
                    name: query_name(path, i, count),
                    graph: Ok(loaded.graph),
                })
                .collect()
        }
        Err(err) => vec![Query {
            graph: Err(anyhow::Error::new(err).context(format!("reading query {name}"))),
            name,
        }],
    }
}

/// The queries of every file, in order.
pub fn read_query_files(paths: &[impl AsRef<Path>], options: &ReadOptions) -> Vec<Query> {
    paths
        .iter()
        .flat_map(|p| read_query_file(p.as_ref(), options))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gsi_file_of_several_graphs_gives_one_query_each() {
        let dir = tempfile::tempdir().unwrap();
        let many = dir.path().join("q.gsi");
        std::fs::write(
            &many,
            "t # 0\n1 0 1 1\nv 0 1\nt # 1\n2 1 1 1\nv 0 1\nv 1 1\ne 0 1 1\nt # -1\n",
        )
        .unwrap();
        let one = dir.path().join("q.graph");
        std::fs::write(&one, "t 1 0\nv 0 0 0\n").unwrap();
        let bad = dir.path().join("bad.graph");
        std::fs::write(&bad, "t 1 0\nv 0 x 0\n").unwrap();
        let queries = read_query_files(&[&many, &one, &bad], &ReadOptions::default());
        let names: Vec<&str> = queries.iter().map(|q| q.name.as_str()).collect();
        let expected = [
            format!("{}#0", many.display()),
            format!("{}#1", many.display()),
            one.display().to_string(),
            bad.display().to_string(),
        ];
        assert_eq!(names, expected);
        assert_eq!(queries[1].graph.as_ref().unwrap().edge_count(), 1);
        let err = queries[3].graph.as_ref().unwrap_err();
        assert!(format!("{err:#}").starts_with("reading query "), "{err:#}");
        assert_eq!(
            crate::exit::Exit::of_error(err),
            crate::exit::Exit::BadInput
        );
    }
}
