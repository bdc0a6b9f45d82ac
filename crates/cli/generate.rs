//! `gsi generate graph`, `gsi generate queries` and `gsi generate rdf`: seeded data graphs,
//! queries and RDF, written as text files.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};
use flate2::write::GzEncoder;
use gsi_generate::{
    generate_graph, generate_queries, write_rdf, Density, GraphSpec, QuerySpec, RdfSpec,
    RdfSummary, Shape,
};
use gsi_graph::formats::write::{write_graph, WriteFormat};
use gsi_graph::formats::AtomicFile;

use crate::output::{is_stdout, output_name, refuse_binary_to_terminal, write_graph_output};

use crate::config::{process_bound, read_options};
use crate::exit::input_error;
use crate::exit::Exit;
use crate::flags::{GenerateCommand, GenerateGraphArgs, GenerateQueriesArgs, GenerateRdfArgs};
use crate::{load, progress};

/// A request the generators cannot meet is bad input; anything else is a failure.
fn generation_error(context: &str, err: gsi_generate::Error) -> anyhow::Error {
    match err {
        gsi_generate::Error::Invalid(message) => input_error(format!("{context}{message}")),
        other => anyhow::Error::new(other),
    }
}

/// The spec `gsi generate graph` asks for.
pub fn graph_spec(args: &GenerateGraphArgs) -> Result<GraphSpec> {
    let scale = args.scale.unwrap_or(1.0);
    let mut spec = match args.like {
        Some(preset) => preset
            .spec(scale, args.seed)
            .map_err(|e| generation_error(&format!("--scale {scale}: "), e))?,
        None => GraphSpec {
            vertices: args.vertices.unwrap_or(0),
            edges: args.edges.unwrap_or(0),
            vertex_labels: args.vertex_labels.unwrap_or(1),
            edge_labels: args.edge_labels.unwrap_or(1),
            labels_per_vertex: 1,
            shape: args.shape.unwrap_or(Shape::ScaleFree),
            directed: false,
            seed: args.seed,
        },
    };
    spec.directed = args.directed;
    spec.labels_per_vertex = args.labels_per_vertex;
    Ok(spec)
}

/// The file name of query `i` (from 1).
pub fn query_file_name(density: Density, size: usize, i: usize) -> String {
    format!("query_{density}_{size}_{i}.graph")
}

fn run_graph(args: GenerateGraphArgs) -> Result<Exit> {
    let spec = graph_spec(&args)?;
    // No file named: standard output.
    let output = args.output.as_deref().unwrap_or(Path::new("-"));
    let format = args.to.format();
    refuse_binary_to_terminal(output, format)?;
    let limit = crate::memory::process_limit();
    if spec.estimated_bytes() > limit.bytes {
        return Err(input_error(format!(
            "{} vertices and {} edges need about {:.1} GiB of memory to generate, more than this process may use, {limit}",
            spec.vertices,
            spec.edges,
            spec.estimated_bytes() as f64 / (1u64 << 30) as f64
        )));
    }
    let started = Instant::now();
    let what = match args.like {
        Some(preset) => format!(
            "a graph like {preset} (scale {})",
            args.scale.unwrap_or(1.0)
        ),
        None => "a graph".into(),
    };
    let spinner = progress::spinner(
        progress::wanted(args.quiet),
        format!(
            "generating {what}: {} vertices, {} edges",
            spec.vertices, spec.edges
        ),
    );
    let graph = generate_graph(&spec).map_err(|e| generation_error("", e))?;
    spinner.set_message(format!("writing {}", output_name(output)));
    write_graph_output(output, [&graph], format)
        .with_context(|| format!("writing {}", output_name(output)))?;
    spinner.finish_and_clear();
    if !args.quiet {
        eprintln!(
            "gsi: wrote {} ({format}): {} vertices, {} edges, {} vertex labels{}, {} edge labels, {}{}, seed {}, in {:.3} s",
            output_name(output),
            graph.vertex_count(),
            graph.edge_count(),
            spec.vertex_labels,
            match spec.labels_per_vertex {
                1 => String::new(),
                k => format!(" (up to {k} a vertex)"),
            },
            spec.edge_labels,
            spec.shape,
            if spec.directed { ", directed" } else { "" },
            spec.seed,
            started.elapsed().as_secs_f64()
        );
    }
    Ok(Exit::Success)
}

/// Generates the queries and writes them into `dir`; returns the files written.
pub fn write_queries(
    data: &gsi_graph::Graph,
    spec: &QuerySpec,
    dir: &Path,
) -> Result<Vec<PathBuf>> {
    let queries = generate_queries(data, spec).map_err(|e| generation_error("", e))?;
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let mut written = Vec::with_capacity(queries.len());
    for (i, query) in queries.iter().enumerate() {
        let path = dir.join(query_file_name(spec.density, spec.vertices, i + 1));
        write_graph(&path, &query.graph, WriteFormat::SunLuo)
            .with_context(|| format!("writing {}", path.display()))?;
        written.push(path);
    }
    Ok(written)
}

fn run_queries(args: GenerateQueriesArgs) -> Result<Exit> {
    let read = read_options(&args.read, process_bound())?;
    let started = Instant::now();
    let spinner = progress::spinner(progress::wanted(args.quiet), String::new());
    let (file, _) = load::read_one(&args.data, &read, "data graph", &spinner, !args.quiet)?;
    let loaded = file.into_loaded();
    let spec = QuerySpec {
        vertices: args.size,
        count: args.count,
        density: if args.sparse {
            Density::Sparse
        } else {
            Density::Dense
        },
        seed: args.seed,
    };
    spinner.set_message(format!(
        "generating {} {} queries of {} vertices",
        spec.count, spec.density, spec.vertices
    ));
    let written = write_queries(&loaded.graph, &spec, &args.output)
        .map_err(|e| e.context(format!("--size {}", args.size)))?;
    spinner.finish_and_clear();
    if !args.quiet {
        eprintln!(
            "gsi: wrote {} {} queries of {} vertices from {} into {} ({}), seed {}, in {:.3} s",
            written.len(),
            spec.density,
            spec.vertices,
            crate::exit::shown(&args.data),
            crate::exit::shown(&args.output),
            query_file_name(spec.density, spec.vertices, 1).replace("_1.graph", "_{i}.graph"),
            spec.seed,
            started.elapsed().as_secs_f64()
        );
    }
    Ok(Exit::Success)
}

/// Writes the triples of `spec` to `output`: standard output for `-`, gzip for a name
/// ending in `.gz`.
fn write_rdf_output(spec: &RdfSpec, output: &Path) -> gsi_generate::Result<RdfSummary> {
    if is_stdout(output) {
        return write_rdf(
            spec,
            BufWriter::with_capacity(1 << 16, std::io::stdout().lock()),
        );
    }
    let mut file = AtomicFile::create(output)?;
    let summary = match output.extension().is_some_and(|e| e == "gz") {
        true => {
            let mut gzip = GzEncoder::new(BufWriter::new(&mut file), flate2::Compression::fast());
            let summary = write_rdf(spec, &mut gzip)?;
            gzip.finish()?.flush()?;
            summary
        }
        false => write_rdf(spec, BufWriter::with_capacity(1 << 16, &mut file))?,
    };
    file.commit()?;
    Ok(summary)
}

fn run_rdf(args: GenerateRdfArgs) -> Result<Exit> {
    let spec = RdfSpec {
        triples: args.triples,
        seed: args.seed,
    };
    let output = args.output.as_deref().unwrap_or(Path::new("-"));
    let started = Instant::now();
    let spinner = progress::spinner(
        progress::wanted(args.quiet),
        format!(
            "generating about {} triples into {}",
            spec.triples,
            output_name(output)
        ),
    );
    let summary = write_rdf_output(&spec, output).map_err(|e| match e {
        gsi_generate::Error::Io(io) => {
            anyhow::Error::new(io).context(format!("writing {}", output_name(output)))
        }
        other => generation_error("--triples: ", other),
    })?;
    spinner.finish_and_clear();
    if !args.quiet {
        eprintln!(
            "gsi: wrote {} (N-Triples): {} triples about {} entities, seed {}, in {:.3} s",
            output_name(output),
            summary.triples,
            summary.entities,
            spec.seed,
            started.elapsed().as_secs_f64()
        );
    }
    Ok(Exit::Success)
}

pub fn run(what: GenerateCommand) -> Result<Exit> {
    match what {
        GenerateCommand::Graph(args) => run_graph(args),
        GenerateCommand::Queries(args) => run_queries(args),
        GenerateCommand::Rdf(args) => run_rdf(args),
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;
    use gsi_generate::Preset;
    use gsi_graph::formats::{read_graph, Format};

    use super::*;
    use crate::flags::{Cli, Command};

    fn graph_args(extra: &[&str]) -> Result<GenerateGraphArgs, clap::Error> {
        let mut argv = vec!["gsi", "generate", "graph", "-o", "g.graph"];
        argv.extend_from_slice(extra);
        Cli::try_parse_from(argv).map(|cli| match cli.command {
            Some(Command::Generate(g)) => match g.what {
                GenerateCommand::Graph(args) => args,
                other => panic!("{other:?}"),
            },
            other => panic!("{other:?}"),
        })
    }

    #[test]
    fn graph_flags_make_the_spec() {
        let args = graph_args(&[
            "--vertices",
            "100",
            "--edges",
            "300",
            "--vertex-labels",
            "4",
            "--shape",
            "mesh",
            "--seed",
            "9",
            "--directed",
        ])
        .unwrap();
        let spec = graph_spec(&args).unwrap();
        assert_eq!(
            spec,
            GraphSpec {
                vertices: 100,
                edges: 300,
                vertex_labels: 4,
                edge_labels: 1,
                labels_per_vertex: 1,
                shape: Shape::Mesh,
                directed: true,
                seed: 9,
            }
        );
        let like = graph_spec(&graph_args(&["--like", "gowalla", "--scale", "0.01"]).unwrap());
        assert_eq!(like.unwrap(), Preset::Gowalla.spec(0.01, 0).unwrap());
        let err =
            graph_spec(&graph_args(&["--like", "enron", "--scale", "-1"]).unwrap()).unwrap_err();
        assert!(err.to_string().starts_with("--scale -1: "), "{err}");
        assert_eq!(
            crate::exit::Exit::of_error(&err),
            crate::exit::Exit::BadInput
        );
    }

    #[test]
    fn graph_flags_conflict_and_require_sizes() {
        assert!(graph_args(&[]).is_err());
        assert!(graph_args(&["--vertices", "10"]).is_err());
        assert!(graph_args(&["--like", "road", "--vertices", "10"]).is_err());
        assert!(graph_args(&["--vertices", "10", "--edges", "5", "--scale", "2"]).is_err());
        assert!(graph_args(&["--like", "patent"]).is_ok());
        let err = graph_args(&["--shape", "cube", "--vertices", "1", "--edges", "0"])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("--shape") && err.contains("unknown graph shape"),
            "{err}"
        );
    }

    #[test]
    fn rdf_is_gzipped_for_a_name_ending_in_gz() {
        let dir = tempfile::tempdir().unwrap();
        let spec = RdfSpec {
            triples: 10_000,
            seed: 2,
        };
        let (plain, gzipped) = (dir.path().join("w.nt"), dir.path().join("w.nt.gz"));
        let written = write_rdf_output(&spec, &plain).unwrap();
        assert_eq!(write_rdf_output(&spec, &gzipped).unwrap(), written);
        let mut unzipped = Vec::new();
        let file = std::fs::File::open(&gzipped).unwrap();
        std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(file), &mut unzipped).unwrap();
        assert_eq!(unzipped, std::fs::read(&plain).unwrap());
        let lines = unzipped.iter().filter(|&&b| b == b'\n').count();
        assert_eq!(lines as u64, written.triples);
    }

    #[test]
    fn same_seed_same_query_files() {
        let dir = tempfile::tempdir().unwrap();
        let mut spec = GraphSpec::new(300, 1200, Shape::ScaleFree);
        spec.vertex_labels = 4;
        spec.seed = 5;
        let data = generate_graph(&spec).unwrap();
        let queries = QuerySpec {
            vertices: 6,
            count: 4,
            density: Density::Sparse,
            seed: 11,
        };
        let first = write_queries(&data, &queries, &dir.path().join("a")).unwrap();
        let again = write_queries(&data, &queries, &dir.path().join("b")).unwrap();
        let names: Vec<String> = first
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            names,
            (1..=4)
                .map(|i| format!("query_sparse_6_{i}.graph"))
                .collect::<Vec<_>>()
        );
        for (a, b) in first.iter().zip(&again) {
            assert_eq!(std::fs::read(a).unwrap(), std::fs::read(b).unwrap());
            let q = read_graph(a, Format::SunLuo, false).unwrap();
            assert_eq!(q.vertex_count(), 6);
        }
        let too_big = QuerySpec {
            vertices: 301,
            ..queries
        };
        let err = write_queries(&data, &too_big, dir.path()).unwrap_err();
        assert_eq!(
            crate::exit::Exit::of_error(&err),
            crate::exit::Exit::BadInput
        );
    }
}
