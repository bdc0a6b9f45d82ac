//! `gsi demo` (and `gsi` alone): a real query on a small labelled graph that gsi builds itself.
//!
//! The data graph holds four drug molecules drawn by hand from their structural formulas:
//! atoms are vertices labelled by atomic number, bonds are edges labelled 1 (single),
//! 2 (double) or 4 (aromatic). The query is the carboxyl pattern C–C(=O)–O, which finds the
//! acid groups of aspirin and ibuprofen and the ester group of aspirin.

use anyhow::Result;
use gsi_core::{find_matches, CollectMatches, DataIndex, MatchOptions};
use gsi_graph::{Graph, GraphBuilder, VertexId};

use crate::config::{engine_config, engine_kind};
use crate::exit::Exit;
use crate::flags::EngineArg;

/// A molecule: element symbols of its heavy atoms, and bonds `(atom, atom, order)`.
pub struct Molecule {
    pub name: &'static str,
    pub atoms: &'static str,
    pub bonds: &'static [(u32, u32, u32)],
}

const AROMATIC: u32 = 4;
const BENZENE: [(u32, u32, u32); 6] = [
    (0, 1, AROMATIC),
    (1, 2, AROMATIC),
    (2, 3, AROMATIC),
    (3, 4, AROMATIC),
    (4, 5, AROMATIC),
    (5, 0, AROMATIC),
];

macro_rules! ring_and {
    ($($bond:expr),* $(,)?) => {{
        const BONDS: &[(u32, u32, u32)] = &[
            BENZENE[0], BENZENE[1], BENZENE[2], BENZENE[3], BENZENE[4], BENZENE[5], $($bond),*
        ];
        BONDS
    }};
}

/// The built-in molecules.
pub const MOLECULES: &[Molecule] = &[
    Molecule {
        name: "aspirin",
        atoms: "CCCCCCOCOCCOO",
        bonds: ring_and![
            (0, 6, 1),
            (6, 7, 1),
            (7, 8, 2),
            (7, 9, 1),
            (1, 10, 1),
            (10, 11, 2),
            (10, 12, 1)
        ],
    },
    Molecule {
        name: "paracetamol",
        atoms: "CCCCCCONCOC",
        bonds: ring_and![(0, 6, 1), (3, 7, 1), (7, 8, 1), (8, 9, 2), (8, 10, 1)],
    },
    Molecule {
        name: "ibuprofen",
        atoms: "CCCCCCCCCCCCCOO",
        bonds: ring_and![
            (0, 6, 1),
            (6, 7, 1),
            (7, 8, 1),
            (7, 9, 1),
            (3, 10, 1),
            (10, 11, 1),
            (10, 12, 1),
            (12, 13, 2),
            (12, 14, 1)
        ],
    },
    Molecule {
        name: "caffeine",
        atoms: "NCNCCCNCNOOCCC",
        bonds: &[
            (0, 1, 1),
            (1, 2, 1),
            (2, 3, 1),
            (3, 4, 2),
            (4, 5, 1),
            (5, 0, 1),
            (3, 8, 1),
            (8, 7, 2),
            (7, 6, 1),
            (6, 4, 1),
            (1, 9, 2),
            (5, 10, 2),
            (0, 11, 1),
            (2, 12, 1),
            (6, 13, 1),
        ],
    },
];

fn atomic_number(symbol: char) -> u32 {
    match symbol {
        'C' => 6,
        'N' => 7,
        'O' => 8,
        other => unreachable!("no element {other} in the built-in molecules"),
    }
}

/// The data graph: all molecules side by side, atom ids numbered molecule after molecule.
pub fn molecules_graph() -> Graph {
    let mut builder = GraphBuilder::new(false);
    for molecule in MOLECULES {
        let base = builder.vertex_count() as u32;
        for symbol in molecule.atoms.chars() {
            builder.add_vertex(atomic_number(symbol));
        }
        for &(a, b, order) in molecule.bonds {
            builder
                .add_edge(base + a, base + b, order)
                .expect("valid molecule");
        }
    }
    builder.build().expect("valid molecules")
}

/// The query C–C(=O)–O: vertex 1 is the carbonyl carbon.
pub fn carboxyl_query() -> Graph {
    let mut builder = GraphBuilder::with_vertices(false, vec![6, 6, 8, 8]);
    for (a, b, order) in [(0, 1, 1), (1, 2, 2), (1, 3, 1)] {
        builder.add_edge(a, b, order).expect("valid query");
    }
    builder.build().expect("valid query")
}

/// Names a data vertex as `molecule`, `C11` (element and one-based atom number).
fn atom_name(v: VertexId) -> (&'static str, String) {
    let mut base = 0;
    for molecule in MOLECULES {
        let n = molecule.atoms.len() as u32;
        if v < base + n {
            let i = v - base;
            let symbol = molecule.atoms.as_bytes()[i as usize] as char;
            return (molecule.name, format!("{symbol}{}", i + 1));
        }
        base += n;
    }
    unreachable!("vertex {v} is in some molecule")
}

/// One line of the demo's table, the header included: a molecule, then one column per query
/// atom.
fn table_row<T: std::fmt::Display>(first: &str, cells: impl IntoIterator<Item = T>) -> String {
    let cells: Vec<String> = cells.into_iter().map(|c| format!("{c:<5}")).collect();
    format!("  {first:<12} {}", cells.join(" "))
        .trim_end()
        .to_string()
}

pub fn run(engine: EngineArg) -> Result<Exit> {
    let kind = engine_kind(engine);
    let opened = gsi_core::open(kind, &engine_config(kind, 0)?)?;
    let mut engine = opened.engine;
    if let Some(notice) = &opened.notice {
        eprintln!("gsi: {}", notice);
    }
    let data = DataIndex::build(molecules_graph())?;
    let query = carboxyl_query();
    let mut found = CollectMatches::default();
    let report = find_matches(
        engine.as_mut(),
        &query,
        &data,
        &MatchOptions::default(),
        &mut found,
    )?;
    println!(
        "gsi demo: the carboxyl pattern C-C(=O)-O in {} drug molecules ({} atoms, {} bonds), {} engine",
        MOLECULES.len(),
        data.graph().vertex_count(),
        data.graph().edge_count(),
        report.engine
    );
    println!();
    println!("{}", table_row("molecule", ["C", "C(=O)", "=O", "-O"]));
    for m in found.rows() {
        let (molecule, _) = atom_name(m[0]);
        println!("{}", table_row(molecule, m.iter().map(|&v| atom_name(v).1)));
    }
    println!();
    println!("count = {}", report.count);
    println!("time_ms = {:.3}", report.times.join.as_secs_f64() * 1e3);
    println!();
    println!("Try next:");
    println!(
        "  gsi match --data DATA.graph --query QUERY.graph   count a query's matches in your graph"
    );
    println!(
        "  gsi match --data DATA.graph --query DIR/ --json   a whole query set, as JSON Lines"
    );
    println!("  gsi match --help                                  every option, with examples");
    Ok(Exit::Success)
}
