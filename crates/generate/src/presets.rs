//! Graphs shaped like the datasets of the GSI paper's experiments.

use std::fmt;
use std::str::FromStr;

use crate::{Error, GraphSpec, Result, Shape};

/// A dataset of the GSI paper: its size, label counts and shape, to be scaled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Preset {
    /// Enron e-mail: 69K vertices, 274K edges, |LV| 10, |LE| 100, scale-free.
    Enron,
    /// Gowalla check-ins: 196K vertices, 1.9M edges, |LV| 100, |LE| 100, scale-free.
    Gowalla,
    /// US patents: 6M vertices, 16M edges, |LV| 453, |LE| 1K, scale-free.
    Patent,
    /// Road network: 14M vertices, 16M edges, |LV| 1K, |LE| 1K, mesh.
    Road,
    /// WatDiv RDF benchmark: 10M vertices, 109M edges, |LV| 1K, |LE| 86, scale-free.
    Watdiv,
    /// DBpedia: 22M vertices, 170M edges, |LV| 1K, |LE| 57K, scale-free.
    Dbpedia,
}

impl Preset {
    /// Every preset, smallest first.
    pub const ALL: [Preset; 6] = [
        Preset::Enron,
        Preset::Gowalla,
        Preset::Patent,
        Preset::Road,
        Preset::Watdiv,
        Preset::Dbpedia,
    ];

    /// The name [`Preset::from_str`] accepts and [`fmt::Display`] prints.
    pub fn name(self) -> &'static str {
        match self {
            Preset::Enron => "enron",
            Preset::Gowalla => "gowalla",
            Preset::Patent => "patent",
            Preset::Road => "road",
            Preset::Watdiv => "watdiv",
            Preset::Dbpedia => "dbpedia",
        }
    }

    /// The full-size spec: (vertices, edges, |LV|, |LE|, shape).
    fn full(self) -> (usize, usize, u32, u32, Shape) {
        match self {
            Preset::Enron => (69_000, 274_000, 10, 100, Shape::ScaleFree),
            Preset::Gowalla => (196_000, 1_900_000, 100, 100, Shape::ScaleFree),
            Preset::Patent => (6_000_000, 16_000_000, 453, 1_000, Shape::ScaleFree),
            Preset::Road => (14_000_000, 16_000_000, 1_000, 1_000, Shape::Mesh),
            Preset::Watdiv => (10_000_000, 109_000_000, 1_000, 86, Shape::ScaleFree),
            Preset::Dbpedia => (22_000_000, 170_000_000, 1_000, 57_000, Shape::ScaleFree),
        }
    }

    /// The preset's spec with vertices and edges multiplied by `scale` (rounded; at least
    /// 2 vertices, and never more edges than those vertices can hold), label counts kept,
    /// undirected, with `seed`.
    ///
    /// # Errors
    /// [`Error::Invalid`] when `scale` is not a positive number or makes more vertices than
    /// 32-bit ids can number.
    pub fn spec(self, scale: f64, seed: u64) -> Result<GraphSpec> {
        if !(scale.is_finite() && scale > 0.0) {
            return Err(Error::Invalid(format!(
                "the scale must be a positive number, not {scale}"
            )));
        }
        let (n, m, vertex_labels, edge_labels, shape) = self.full();
        let vertices = (n as f64 * scale).round();
        if vertices >= f64::from(u32::MAX) {
            return Err(Error::Invalid(format!(
                "scale {scale} gives {vertices} vertices, more than 32-bit ids can number"
            )));
        }
        let mut spec = GraphSpec {
            vertices: (vertices as usize).max(2),
            edges: 0,
            vertex_labels,
            edge_labels,
            labels_per_vertex: 1,
            shape,
            directed: false,
            seed,
        };
        spec.edges = ((m as f64 * scale).round() as u64).min(spec.max_edges()) as usize;
        Ok(spec)
    }
}

impl fmt::Display for Preset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Preset {
    type Err = Error;

    /// Accepts the names of [`Preset::ALL`] in any case.
    fn from_str(s: &str) -> Result<Preset> {
        let wanted = s.trim().to_ascii_lowercase();
        Preset::ALL
            .into_iter()
            .find(|p| p.name() == wanted)
            .ok_or_else(|| {
                Error::Invalid(format!(
                    "unknown preset `{s}`: expected enron, gowalla, patent, road, watdiv or dbpedia"
                ))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_scale_sizes_and_keep_labels() {
        let spec = Preset::Gowalla.spec(0.01, 9).unwrap();
        assert_eq!(
            (
                spec.vertices,
                spec.edges,
                spec.vertex_labels,
                spec.edge_labels
            ),
            (1_960, 19_000, 100, 100)
        );
        assert_eq!(
            (spec.shape, spec.seed, spec.directed),
            (Shape::ScaleFree, 9, false)
        );
        let full = Preset::Dbpedia.spec(1.0, 0).unwrap();
        assert_eq!((full.vertices, full.edges), (22_000_000, 170_000_000));
        assert_eq!(Preset::Road.spec(1.0, 0).unwrap().shape, Shape::Mesh);
        // Tiny scales keep the edges feasible.
        let tiny = Preset::Enron.spec(1e-4, 0).unwrap();
        assert_eq!((tiny.vertices, tiny.edges), (7, 21));
        let tiny = Preset::Road.spec(1e-9, 0).unwrap();
        assert_eq!((tiny.vertices, tiny.edges), (2, 0));
    }

    #[test]
    fn bad_scales_and_names_are_errors() {
        for scale in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            assert!(Preset::Enron.spec(scale, 0).is_err());
        }
        assert!(Preset::Dbpedia
            .spec(1000.0, 0)
            .unwrap_err()
            .to_string()
            .contains("32-bit"));
        for p in Preset::ALL {
            assert_eq!(p.to_string().parse::<Preset>().unwrap(), p);
        }
        assert_eq!("WatDiv".parse::<Preset>().unwrap(), Preset::Watdiv);
        let err = "yago".parse::<Preset>().unwrap_err().to_string();
        assert!(err.contains("unknown preset `yago`"));
    }
}
