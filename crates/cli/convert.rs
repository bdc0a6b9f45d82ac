//! `gsi convert`: any format gsi reads to Sun–Luo or GSI text or gMatch's binary CSR.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};
use gsi_graph::formats::write::{write_dictionary, write_vertex_names, WriteFormat};
use gsi_graph::formats::{AtomicFile, LoadedGraph, ReadOptions};
use indicatif::ProgressBar;

use crate::config::{process_bound, read_options};
use crate::exit::input_error;
use crate::exit::Exit;
use crate::flags::ConvertArgs;
use crate::output::{is_stdout, output_name, refuse_binary_to_terminal, write_graph_output};
use crate::{load, progress};

/// What a conversion wrote.
#[derive(Debug, PartialEq, Eq)]
pub struct Converted {
    pub graphs: usize,
    pub vertices: usize,
    pub edges: usize,
    /// Whether the graphs are directed, which the output formats do not record.
    pub directed: bool,
    /// The files written beside the output: the input's vertex names and label names, which
    /// the output's numbers stand for.
    pub maps: Vec<PathBuf>,
}

/// Writes, beside `output`, what the numbers of a converted graph stand for: `OUTPUT.ids`
/// (`vertex name` per line: SNAP ids or names, RDF terms), `OUTPUT.vertex-labels` and
/// `OUTPUT.edge-labels` (`label name`), for whichever the input named. Returns them.
fn write_maps(loaded: &LoadedGraph, output: &Path) -> Result<Vec<PathBuf>> {
    let beside = |suffix: &str| PathBuf::from(format!("{}.{suffix}", output.display()));
    let mut written = Vec::new();
    let mut write = |path: PathBuf, body: &dyn Fn(&mut dyn Write) -> std::io::Result<()>| {
        let mut file = AtomicFile::create(&path)?;
        body(&mut file)?;
        file.commit()?;
        written.push(path);
        std::io::Result::Ok(())
    };
    if let Some(names) = &loaded.names {
        let path = beside("ids");
        write(path.clone(), &|out| write_vertex_names(names, out))
            .with_context(|| format!("writing {}", path.display()))?;
    }
    for (suffix, names) in [
        ("vertex-labels", &loaded.labels.vertex),
        ("edge-labels", &loaded.labels.edge),
    ] {
        if let Some(names) = names {
            let path = beside(suffix);
            write(path.clone(), &|out| write_dictionary(names, out))
                .with_context(|| format!("writing {}", path.display()))?;
        }
    }
    Ok(written)
}

/// Reads `input` and writes its graphs to `output` as `to`.
pub fn convert(
    input: &Path,
    read: &ReadOptions,
    to: WriteFormat,
    output: &Path,
    spinner: &ProgressBar,
    notes: bool,
) -> Result<Converted> {
    if load::same_file(input, output) {
        return Err(input_error(format!(
            "-o {}: the output would replace the input; name another file",
            output.display()
        )));
    }
    refuse_binary_to_terminal(output, to)?;
    let graphs: Vec<LoadedGraph> = load::read_file(input, read, "input", spinner, notes)?
        .graphs
        .into_iter()
        .map(load::DataFile::into_loaded)
        .collect();
    let count = graphs.len();
    if to.holds_one_graph() && count != 1 {
        return Err(input_error(format!(
            "--to {to}: {} holds {count} graphs, but a {to} file holds one; use --to gsi",
            input.display()
        )));
    }
    spinner.set_message(format!("writing {}", output_name(output)));
    write_graph_output(output, graphs.iter().map(|g| &g.graph), to)
        .with_context(|| format!("writing {}", output_name(output)))?;
    // Only readers of one graph per file give names; standard output has no file beside it.
    let maps = match graphs.as_slice() {
        [one] if is_stdout(output) => {
            let named =
                one.names.is_some() || one.labels.vertex.is_some() || one.labels.edge.is_some();
            if named && notes {
                spinner.suspend(|| {
                    eprintln!(
                        "gsi: -o -: the names the numbers stand for are not written; name a file to get them beside it"
                    )
                });
            }
            Vec::new()
        }
        [one] => write_maps(one, output)?,
        _ => Vec::new(),
    };
    Ok(Converted {
        graphs: count,
        vertices: graphs.iter().map(|g| g.graph.vertex_count()).sum(),
        edges: graphs.iter().map(|g| g.graph.edge_count()).sum(),
        directed: graphs.iter().any(|g| g.graph.is_directed()),
        maps,
    })
}

pub fn run(args: ConvertArgs) -> Result<Exit> {
    let read = read_options(&args.read, process_bound())?;
    let notes = !args.quiet;
    let spinner = progress::spinner(progress::wanted(args.quiet), String::new());
    let started = Instant::now();
    let to = args.to.format();
    let done = convert(&args.input, &read, to, &args.output, &spinner, notes)?;
    spinner.finish_and_clear();
    if notes {
        if done.directed {
            eprintln!(
                "gsi: {} is directed, and {to} files do not say so: read {} with --directed to keep its edges' directions",
                crate::exit::shown(&args.input),
                output_name(&args.output)
            );
        }
        for map in &done.maps {
            eprintln!(
                "gsi: wrote {}: the names that {}'s numbers stand for, `number name` per line",
                crate::exit::shown(map),
                output_name(&args.output)
            );
        }
        eprintln!(
            "gsi: wrote {} ({to}, {} graph{}, {} vertices, {} edges) in {:.3} s",
            output_name(&args.output),
            done.graphs,
            if done.graphs == 1 { "" } else { "s" },
            done.vertices,
            done.edges,
            started.elapsed().as_secs_f64()
        );
    }
    Ok(Exit::Success)
}

#[cfg(test)]
mod tests {
    use gsi_core::cpu::CpuEngine;
    use gsi_core::{find_matches, CollectMatches, DataIndex, MatchOptions, Semantics};
    use gsi_generate::{generate_graph, generate_queries, Density, GraphSpec, QuerySpec, Shape};
    use gsi_graph::formats::{load_graph, write::write_graph, Format};
    use gsi_graph::{Graph, VertexId};

    use super::*;

    /// Every match of every query, sorted per query.
    fn answers(data: Graph, queries: &[Graph], semantics: Semantics) -> Vec<Vec<Vec<VertexId>>> {
        let index = DataIndex::build(data).unwrap();
        let options = MatchOptions {
            semantics,
            ..MatchOptions::default()
        };
        queries
            .iter()
            .map(|q| {
                let mut found = CollectMatches::default();
                let report =
                    find_matches(&mut CpuEngine::default(), q, &index, &options, &mut found)
                        .unwrap();
                let rows = found.sorted_rows();
                assert_eq!(rows.len() as u128, report.count);
                rows
            })
            .collect()
    }

    #[test]
    fn sunluo_to_gsi_to_sunluo_keeps_every_answer() {
        let dir = tempfile::tempdir().unwrap();
        let hidden = ProgressBar::hidden();
        let shapes = [Shape::ScaleFree, Shape::Uniform, Shape::Mesh];
        for case in 0..6u64 {
            let directed = case % 2 == 1;
            let mut spec = GraphSpec::new(150 + 40 * case as usize, 600, shapes[case as usize % 3]);
            spec.vertex_labels = 3;
            spec.edge_labels = 1 + (case % 3) as u32;
            spec.directed = directed;
            spec.seed = case;
            spec.edges = spec.edges.min(spec.max_edges() as usize);
            let data = generate_graph(&spec).unwrap();
            let queries: Vec<Graph> = [3, 4]
                .into_iter()
                .flat_map(|k| {
                    generate_queries(
                        &data,
                        &QuerySpec {
                            vertices: k,
                            count: 2,
                            density: if case % 2 == 0 {
                                Density::Dense
                            } else {
                                Density::Sparse
                            },
                            seed: case,
                        },
                    )
                    .unwrap()
                })
                .map(|q| q.graph)
                .collect();
            let original = dir.path().join(format!("g{case}.graph"));
            write_graph(&original, &data, WriteFormat::SunLuo).unwrap();
            let read = ReadOptions {
                format: Format::Auto,
                directed,
                vertex_labels: None,
                memory: None,
            };
            let gsi = dir.path().join(format!("g{case}.gsi"));
            let back = dir.path().join(format!("g{case}.back.graph"));
            convert(&original, &read, WriteFormat::Gsi, &gsi, &hidden, false).unwrap();
            let converted =
                convert(&gsi, &read, WriteFormat::SunLuo, &back, &hidden, false).unwrap();
            assert_eq!((converted.graphs, converted.edges), (1, data.edge_count()));
            assert_eq!(load_graph(&gsi, &read).unwrap().format, Format::Gsi);
            let round = load_graph(&back, &read).unwrap();
            assert_eq!(round.format, Format::SunLuo);
            assert_eq!(round.graph, data);
            for semantics in [Semantics::Isomorphism, Semantics::Homomorphism] {
                assert_eq!(
                    answers(round.graph.clone(), &queries, semantics),
                    answers(data.clone(), &queries, semantics),
                    "case {case} {semantics:?}"
                );
            }
        }
    }

    #[test]
    fn several_graphs_convert_only_to_gsi() {
        let dir = tempfile::tempdir().unwrap();
        let hidden = ProgressBar::hidden();
        let many = dir.path().join("q.gsi");
        std::fs::write(
            &many,
            "t # 0\n1 0 1 1\nv 0 1\nt # 1\n2 1 2 1\nv 0 2\nv 1 1\ne 0 1 1\nt # -1\n",
        )
        .unwrap();
        let read = ReadOptions::default();
        let err = convert(
            &many,
            &read,
            WriteFormat::SunLuo,
            &dir.path().join("x"),
            &hidden,
            false,
        )
        .unwrap_err();
        assert!(err.to_string().contains("holds 2 graphs"), "{err}");
        assert_eq!(
            crate::exit::Exit::of_error(&err),
            crate::exit::Exit::BadInput
        );
        let copy = dir.path().join("copy.gsi");
        let done = convert(&many, &read, WriteFormat::Gsi, &copy, &hidden, false).unwrap();
        assert_eq!((done.graphs, done.vertices, done.edges), (2, 3, 1));
        assert_eq!(std::fs::read(&copy).unwrap(), std::fs::read(&many).unwrap());
        let err = convert(&many, &read, WriteFormat::Gsi, &many, &hidden, false).unwrap_err();
        assert!(err.to_string().contains("would replace the input"), "{err}");
    }

    #[test]
    fn snap_names_are_noted_and_renumbered() {
        let dir = tempfile::tempdir().unwrap();
        let hidden = ProgressBar::hidden();
        let snap = dir.path().join("g.txt");
        std::fs::write(&snap, "# comment\n100 7\n7 42\n").unwrap();
        let out = dir.path().join("g.graph");
        let done = convert(
            &snap,
            &ReadOptions::default(),
            WriteFormat::SunLuo,
            &out,
            &hidden,
            false,
        )
        .unwrap();
        assert_eq!(done.maps, vec![dir.path().join("g.graph.ids")]);
        assert_eq!(
            std::fs::read_to_string(&out).unwrap(),
            "t 3 2\nv 0 0 1\nv 1 0 2\nv 2 0 1\ne 0 1 0\ne 1 2 0\n"
        );
        assert_eq!(
            std::fs::read_to_string(&done.maps[0]).unwrap(),
            "0 100\n1 7\n2 42\n"
        );
    }
}
