//! Data-graph generation: scale-free, mesh and uniform shapes with Zipf-distributed labels.

use std::fmt;
use std::str::FromStr;

use gsi_graph::{EdgeLabel, Graph, GraphBuilder, VertexId, VertexLabel};
use rand_pcg::Pcg64;
use rayon::prelude::*;

use crate::random::{below, cbrt, stream, unit, Purpose, Zipf};
use crate::{Error, Result};

/// Candidate edges drawn by one task (and one random stream).
const CHUNK: usize = 1 << 16;

/// How edges are laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Shape {
    /// Power-law degrees (Chung–Lu: endpoints drawn in proportion to power-law weights,
    /// exponent 2.5), as in social, citation and RDF graphs. The heaviest vertex is aimed at
    /// about `sqrt(N)` times the mean degree; vertex ids are shuffled so that degree does
    /// not follow id.
    ScaleFree,
    /// A road-network-like 2-D grid: vertex `i` sits at row `i / W`, column `i % W` with
    /// `W = ceil(sqrt(N))`; edges join grid neighbours (right, down) and, when more edges
    /// are asked than the grid has, diagonal neighbours, so no degree exceeds 8 (4 while
    /// `M` is at most about `2N`). Ids keep the grid order.
    Mesh,
    /// Erdős–Rényi `G(N, M)`: every pair equally likely.
    Uniform,
}

impl Shape {
    /// The name [`Shape::from_str`] accepts and [`fmt::Display`] prints.
    pub fn name(self) -> &'static str {
        match self {
            Shape::ScaleFree => "scale-free",
            Shape::Mesh => "mesh",
            Shape::Uniform => "uniform",
        }
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Shape {
    type Err = Error;

    /// Accepts `scale-free` (or `scalefree`, `power-law`), `mesh` (or `grid`, `road`) and
    /// `uniform` (or `er`, `random`), in any case.
    fn from_str(s: &str) -> Result<Shape> {
        match s.trim().to_ascii_lowercase().as_str() {
            "scale-free" | "scalefree" | "scale_free" | "power-law" | "powerlaw" => {
                Ok(Shape::ScaleFree)
            }
            "mesh" | "grid" | "road" => Ok(Shape::Mesh),
            "uniform" | "er" | "random" => Ok(Shape::Uniform),
            _ => Err(Error::Invalid(format!(
                "unknown graph shape `{s}`: expected scale-free, mesh or uniform"
            ))),
        }
    }
}

/// What [`generate_graph`] makes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GraphSpec {
    /// Number of vertices, N.
    pub vertices: usize,
    /// Number of edges, M: exactly this many, without repeats or self-loops.
    pub edges: usize,
    /// Number of vertex labels, |LV| (at least 1): labels are `0..|LV|`, Zipf-distributed.
    pub vertex_labels: u32,
    /// Number of edge labels, |LE| (at least 1): labels are `0..|LE|`, Zipf-distributed.
    pub edge_labels: u32,
    /// Labels drawn for each vertex (at least 1): beyond the first, each vertex draws this
    /// many less one further labels from the same distribution, and keeps the distinct ones
    /// (the paper's multi-labelled vertices, Sec. 7.2).
    pub labels_per_vertex: u32,
    /// How edges are laid out.
    pub shape: Shape,
    /// Directed edges (the mesh orients each edge at random).
    pub directed: bool,
    /// The seed: the same spec gives the same graph on every platform and thread count.
    pub seed: u64,
}

/// Peak bytes per vertex and per edge of [`generate_graph`] with the graph it returns,
/// measured (release build, 2026-11-22): 707 MB for 20 M vertices, 225 MB for 4 M edges.
const BYTES_PER_VERTEX: u64 = 36;
const BYTES_PER_EDGE: u64 = 56;

impl GraphSpec {
    /// About how many bytes generating this graph takes at its peak, so that a request the
    /// machine cannot hold is refused before any is spent.
    pub fn estimated_bytes(&self) -> u64 {
        (self.vertices as u64)
            .saturating_mul(BYTES_PER_VERTEX)
            .saturating_add((self.edges as u64).saturating_mul(BYTES_PER_EDGE))
    }

    /// An undirected spec with one vertex label, one edge label and seed 0.
    pub fn new(vertices: usize, edges: usize, shape: Shape) -> GraphSpec {
        GraphSpec {
            vertices,
            edges,
            vertex_labels: 1,
            edge_labels: 1,
            labels_per_vertex: 1,
            shape,
            directed: false,
            seed: 0,
        }
    }

    /// The most edges this spec's vertices and shape can hold.
    pub fn max_edges(&self) -> u64 {
        let n = self.vertices as u64;
        match self.shape {
            Shape::Mesh => {
                let grid = MeshGrid::new(self.vertices);
                grid.count(MeshClass::Grid) + grid.count(MeshClass::Diagonal)
            }
            _ if self.directed => n * n.saturating_sub(1),
            _ => n * n.saturating_sub(1) / 2,
        }
    }

    fn check(&self) -> Result<()> {
        let invalid = |m: String| Err(Error::Invalid(m));
        if self.vertices >= u32::MAX as usize {
            return invalid(format!(
                "{} vertices do not fit in 32-bit vertex ids",
                self.vertices
            ));
        }
        if self.vertex_labels == 0 || self.edge_labels == 0 {
            return invalid("label counts must be at least 1".into());
        }
        if self.labels_per_vertex == 0 {
            return invalid("labels per vertex must be at least 1".into());
        }
        let max = self.max_edges();
        if self.edges as u64 > max {
            return invalid(format!(
                "{} edges do not fit: a {}{} graph of {} vertices holds at most {max}",
                self.edges,
                if self.directed { "directed " } else { "" },
                self.shape,
                self.vertices
            ));
        }
        Ok(())
    }
}

/// Generates a data graph as `spec` says.
///
/// # Errors
/// [`Error::Invalid`] when the spec cannot be met: more edges than the vertices can hold
/// (see [`GraphSpec::max_edges`]), no labels, or too many vertices.
pub fn generate_graph(spec: &GraphSpec) -> Result<Graph> {
    spec.check()?;
    let n = spec.vertices;
    let keys = match spec.shape {
        Shape::Mesh => mesh_edges(spec),
        Shape::ScaleFree => {
            let sampler = PowerLaw::new(n, spec.edges, spec.seed);
            edge_set(spec, |rng| sampler.sample(rng))
        }
        Shape::Uniform => edge_set(spec, |rng| below(rng, n as u64) as VertexId),
    };
    debug_assert_eq!(keys.len(), spec.edges);

    let vertex_zipf = Zipf::new(spec.vertex_labels);
    let vertex_labels: Vec<VertexLabel> = labels(n, spec.seed, Purpose::VertexLabels, &vertex_zipf);
    let edge_zipf = Zipf::new(spec.edge_labels);
    let edges: Vec<(VertexId, VertexId, EdgeLabel)> = keys
        .par_chunks(CHUNK)
        .enumerate()
        .flat_map_iter(|(c, chunk)| {
            let mut rng = stream(spec.seed, Purpose::EdgeLabels, 0, c as u64);
            let zipf = &edge_zipf;
            chunk.iter().map(move |&k| {
                let (u, v) = unkey(k);
                (u, v, zipf.sample(&mut rng))
            })
        })
        .collect();
    drop(keys);
    let mut builder = GraphBuilder::with_edges(spec.directed, vertex_labels, edges)?;
    for round in 1..spec.labels_per_vertex {
        let more = labels(
            n,
            spec.seed ^ u64::from(round),
            Purpose::MoreVertexLabels,
            &vertex_zipf,
        );
        for (v, label) in more.into_iter().enumerate() {
            builder.add_label(v as VertexId, label)?;
        }
    }
    Ok(builder.build()?)
}

/// `count` labels drawn from `zipf`, in chunks of independent streams.
fn labels(count: usize, seed: u64, purpose: Purpose, zipf: &Zipf) -> Vec<u32> {
    let mut out = vec![0; count];
    out.par_chunks_mut(CHUNK)
        .enumerate()
        .for_each(|(c, chunk)| {
            let mut rng = stream(seed, purpose, 0, c as u64);
            for x in chunk {
                *x = zipf.sample(&mut rng);
            }
        });
    out
}

fn key(u: VertexId, v: VertexId) -> u64 {
    (u64::from(u) << 32) | u64::from(v)
}

fn unkey(k: u64) -> (VertexId, VertexId) {
    ((k >> 32) as VertexId, k as VertexId)
}

/// Chung–Lu endpoints: vertex of rank `r` is drawn with probability proportional to
/// `∫_{r+s}^{r+1+s} x^(-2/3) dx`, weights of exponent 2/3 giving degrees of exponent 2.5.
/// With `y = x^(1/3)` uniform between `s^(1/3)` and `(N+s)^(1/3)` this needs only a cube.
/// The shift `s` tames the heaviest vertex; ranks go through a random permutation.
struct PowerLaw {
    low: f64,
    span: f64,
    shift: f64,
    permutation: Vec<VertexId>,
}

impl PowerLaw {
    fn new(n: usize, m: usize, seed: u64) -> PowerLaw {
        let nf = n as f64;
        let mean = 2.0 * m as f64 / nf.max(1.0);
        // Aim the heaviest vertex at about sqrt(N) times the mean degree, but at no more
        // than half the other vertices.
        let target = (mean * nf.sqrt()).min((nf - 1.0) / 2.0).max(mean);
        let heaviest =
            |s: f64| 2.0 * m as f64 * (cbrt(s + 1.0) - cbrt(s)) / (cbrt(nf + s) - cbrt(s));
        let shift = if n < 2 || heaviest(0.0) <= target {
            0.0
        } else {
            let (mut lo, mut hi) = (0.0f64, 1.0f64);
            while heaviest(hi) > target && hi < 1e18 {
                hi *= 2.0;
            }
            for _ in 0..100 {
                let mid = (lo + hi) / 2.0;
                if heaviest(mid) > target {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            hi
        };
        let low = cbrt(shift);
        let span = cbrt(nf + shift) - low;
        // Fisher–Yates.
        let mut permutation: Vec<VertexId> = (0..n as VertexId).collect();
        let mut rng = stream(seed, Purpose::Permutation, 0, 0);
        for i in (1..n).rev() {
            let j = below(&mut rng, i as u64 + 1) as usize;
            permutation.swap(i, j);
        }
        PowerLaw {
            low,
            span,
            shift,
            permutation,
        }
    }

    fn sample(&self, rng: &mut Pcg64) -> VertexId {
        let y = self.low + unit(rng) * self.span;
        let rank = (y * y * y - self.shift).max(0.0) as usize;
        self.permutation[rank.min(self.permutation.len() - 1)]
    }
}

/// The sorted keys of `spec.edges` distinct edges, drawn in rounds: each round draws as
/// many candidates as edges are missing and keeps the new ones. When a round gains little
/// (hub pairs of a scale-free graph are used up, or the graph is dense) the rest is drawn
/// uniformly, and when even that gains little in a dense graph, chosen from the pairs left.
fn edge_set(spec: &GraphSpec, sampler: impl Fn(&mut Pcg64) -> VertexId + Sync) -> Vec<u64> {
    let m = spec.edges;
    let n = spec.vertices as u64;
    let uniform = |rng: &mut Pcg64| below(rng, n) as VertexId;
    let mut set: Vec<u64> = Vec::new();
    let mut stage = if spec.shape == Shape::Uniform { 1 } else { 0 };
    let mut round = 0u64;
    while set.len() < m {
        let missing = m - set.len();
        let gained = if stage == 2 {
            set = complement_pick(spec, &set, missing);
            missing
        } else {
            let batch = if stage == 0 {
                draw(spec, round, missing, &sampler)
            } else {
                draw(spec, round, missing, &uniform)
            };
            let before = set.len();
            set = union(set, batch);
            set.len() - before
        };
        round += 1;
        if gained * 4 < missing {
            // Drawing the rest of a dense graph one lucky pair at a time would take long:
            // pick from the pairs left, but only where those are few.
            let dense = spec.max_edges() <= 4 * m as u64 + (1 << 20);
            stage = if stage == 0 || !dense { 1 } else { 2 };
        }
    }
    set
}

/// `count` candidate edges of round `round`, normalised, sorted and without repeats or
/// self-loops.
fn draw(
    spec: &GraphSpec,
    round: u64,
    count: usize,
    sampler: &(impl Fn(&mut Pcg64) -> VertexId + Sync),
) -> Vec<u64> {
    let chunks = count.div_ceil(CHUNK);
    let mut batch: Vec<u64> = (0..chunks)
        .into_par_iter()
        .flat_map_iter(|c| {
            let mut rng = stream(spec.seed, Purpose::Edges, round, c as u64);
            let len = CHUNK.min(count - c * CHUNK);
            (0..len).filter_map(move |_| {
                let u = sampler(&mut rng);
                let v = sampler(&mut rng);
                match (u == v, spec.directed || u < v) {
                    (true, _) => None,
                    (false, true) => Some(key(u, v)),
                    (false, false) => Some(key(v, u)),
                }
            })
        })
        .collect();
    batch.par_sort_unstable();
    batch.dedup();
    batch
}

/// The sorted union of two sorted lists without repeats.
fn union(a: Vec<u64>, b: Vec<u64>) -> Vec<u64> {
    if a.is_empty() {
        return b;
    }
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => {
                out.push(a[i]);
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                out.push(b[j]);
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                out.push(a[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

/// Adds `count` pairs chosen uniformly among those not in `set` (selection sampling over
/// all pairs in key order); only called when pairs are few.
fn complement_pick(spec: &GraphSpec, set: &[u64], count: usize) -> Vec<u64> {
    let n = spec.vertices as VertexId;
    let mut left = (spec.max_edges() - set.len() as u64) as usize;
    let mut wanted = count;
    let mut rng = stream(spec.seed, Purpose::Edges, u64::MAX >> 1, 0);
    let mut out = Vec::with_capacity(set.len() + count);
    let mut existing = set.iter().peekable();
    for u in 0..n {
        let targets: Box<dyn Iterator<Item = VertexId>> = if spec.directed {
            Box::new((0..n).filter(move |&v| v != u))
        } else {
            Box::new(u + 1..n)
        };
        for v in targets {
            let k = key(u, v);
            if existing.peek() == Some(&&k) {
                existing.next();
                out.push(k);
                continue;
            }
            if wanted > 0 && below(&mut rng, left as u64) < wanted as u64 {
                out.push(k);
                wanted -= 1;
            }
            left -= 1;
        }
    }
    out
}

/// The two kinds of mesh edges.
#[derive(Clone, Copy, PartialEq, Eq)]
enum MeshClass {
    /// Right and down neighbours.
    Grid,
    /// Down-right and down-left neighbours.
    Diagonal,
}

/// The grid a mesh lays its vertices on.
struct MeshGrid {
    n: u64,
    width: u64,
}

impl MeshGrid {
    fn new(n: usize) -> MeshGrid {
        let n = n as u64;
        let mut width = (n as f64).sqrt() as u64;
        while width * width < n {
            width += 1;
        }
        while width > 0 && (width - 1) * (width - 1) >= n {
            width -= 1;
        }
        MeshGrid { n, width }
    }

    /// The edges of vertex `v` of class `class` towards larger ids, in a fixed order.
    fn edges(&self, v: u64, class: MeshClass) -> impl Iterator<Item = u64> {
        let (n, w) = (self.n, self.width);
        let col = v % w.max(1);
        let candidates = match class {
            MeshClass::Grid => [(col + 1 < w).then_some(v + 1), Some(v + w)],
            MeshClass::Diagonal => [
                (col + 1 < w).then_some(v + w + 1),
                (col >= 1).then(|| v + w - 1),
            ],
        };
        candidates.into_iter().flatten().filter(move |&t| t < n)
    }

    /// How many edges of `class` the grid has (what [`MeshGrid::edges`] gives, summed over
    /// all vertices, in closed form).
    fn count(&self, class: MeshClass) -> u64 {
        let (n, w) = (self.n, self.width);
        if n < 2 {
            return 0;
        }
        match class {
            MeshClass::Grid => {
                let right = (n / w) * (w - 1) + (n % w).saturating_sub(1);
                let down = n.saturating_sub(w);
                right + down
            }
            MeshClass::Diagonal => {
                // Down-right: v < n - w - 1, except the last column.
                let l = n.saturating_sub(w + 1);
                let down_right = l - l / w;
                // Down-left: v < n - w + 1, except the first column.
                let l = (n + 1).saturating_sub(w);
                let down_left = l - l.div_ceil(w);
                down_right + down_left
            }
        }
    }
}

/// Mesh edges: `M` of the grid edges chosen uniformly, or all of them and the rest from the
/// diagonals; sorted keys.
fn mesh_edges(spec: &GraphSpec) -> Vec<u64> {
    let grid = MeshGrid::new(spec.vertices);
    let grid_count = grid.count(MeshClass::Grid);
    let m = spec.edges as u64;
    let mut rng = stream(spec.seed, Purpose::Mesh, 0, 0);
    let mut keys = Vec::with_capacity(spec.edges);
    let mut pick = |class: MeshClass, mut wanted: u64, mut left: u64, keys: &mut Vec<u64>| {
        for v in 0..grid.n {
            for t in grid.edges(v, class) {
                if wanted > 0 && below(&mut rng, left) < wanted {
                    keys.push(key(v as VertexId, t as VertexId));
                    wanted -= 1;
                }
                left -= 1;
            }
        }
    };
    if m <= grid_count {
        pick(MeshClass::Grid, m, grid_count, &mut keys);
    } else {
        let diagonal_count = grid.count(MeshClass::Diagonal);
        pick(MeshClass::Grid, grid_count, grid_count, &mut keys);
        pick(
            MeshClass::Diagonal,
            m - grid_count,
            diagonal_count,
            &mut keys,
        );
    }
    if spec.directed {
        keys.par_chunks_mut(CHUNK)
            .enumerate()
            .for_each(|(c, chunk)| {
                let mut rng = stream(spec.seed, Purpose::Orientation, 0, c as u64);
                for k in chunk {
                    if below(&mut rng, 2) == 1 {
                        let (u, v) = unkey(*k);
                        *k = key(v, u);
                    }
                }
            });
    }
    keys.par_sort_unstable();
    keys
}

#[cfg(test)]
mod tests {
    use super::*;
    use gsi_graph::Direction;

    fn spec(n: usize, m: usize, shape: Shape, seed: u64) -> GraphSpec {
        GraphSpec {
            vertices: n,
            edges: m,
            vertex_labels: 10,
            edge_labels: 20,
            labels_per_vertex: 1,
            shape,
            directed: false,
            seed,
        }
    }

    fn degrees(g: &Graph) -> Vec<usize> {
        (0..g.vertex_count() as VertexId)
            .map(|v| {
                let out = g.degree(v, Direction::Out);
                if g.is_directed() {
                    out + g.degree(v, Direction::In)
                } else {
                    out
                }
            })
            .collect()
    }

    /// Exact counts, labels in range, no self-loops; repeats would have failed the build.
    fn check_shape(g: &Graph, s: &GraphSpec) {
        assert_eq!(g.vertex_count(), s.vertices);
        assert_eq!(g.edge_count(), s.edges);
        assert_eq!(g.is_directed(), s.directed);
        assert!(g.vertex_labels().iter().all(|&l| l < s.vertex_labels));
        let mut seen = std::collections::HashSet::new();
        for (u, v, l) in g.edge_iter() {
            assert!(u != v && l < s.edge_labels);
            assert!(seen.insert((u, v, l)));
        }
        assert_eq!(seen.len(), s.edges);
    }

    #[test]
    fn same_seed_same_graph_other_seed_other_graph() {
        for shape in [Shape::ScaleFree, Shape::Mesh, Shape::Uniform] {
            let a = generate_graph(&spec(3000, 9_000, shape, 5)).unwrap();
            let b = generate_graph(&spec(3000, 9_000, shape, 5)).unwrap();
            let c = generate_graph(&spec(3000, 9_000, shape, 6)).unwrap();
            assert_eq!(a, b, "{shape}");
            assert_ne!(a, c, "{shape}");
        }
    }

    #[test]
    fn the_same_graph_on_any_number_of_threads() {
        let s = spec(5000, 40_000, Shape::ScaleFree, 11);
        let many = generate_graph(&s).unwrap();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let one = pool.install(|| generate_graph(&s).unwrap());
        assert_eq!(many, one);
    }

    #[test]
    fn a_known_seed_gives_a_known_graph() {
        // Pinned: a change here changes every generated benchmark.
        let g = generate_graph(&spec(50, 120, Shape::ScaleFree, 1)).unwrap();
        let fingerprint = g.edge_iter().fold(0u64, |h, (u, v, l)| {
            crate::random::mix(h ^ key(u, v) ^ u64::from(l) << 40)
        });
        let labels = g
            .vertex_labels()
            .iter()
            .fold(0u64, |h, &l| crate::random::mix(h ^ u64::from(l)));
        assert_eq!(
            (fingerprint, labels),
            (5463307105218335204, 9718036651918464502)
        );
    }

    #[test]
    fn scale_free_graphs_have_hubs() {
        for directed in [false, true] {
            let s = GraphSpec {
                directed,
                ..spec(20_000, 100_000, Shape::ScaleFree, 3)
            };
            let g = generate_graph(&s).unwrap();
            check_shape(&g, &s);
            let d = degrees(&g);
            let mean = 2.0 * s.edges as f64 / s.vertices as f64;
            let max = *d.iter().max().unwrap() as f64;
            assert!(max > 20.0 * mean, "max degree {max}, mean {mean}");
            // Heavy tail: the top 1% of vertices hold a large share of the edge ends.
            let mut sorted = d.clone();
            sorted.sort_unstable_by(|a, b| b.cmp(a));
            let top: usize = sorted[..s.vertices / 100].iter().sum();
            assert!(top as f64 > 0.1 * 2.0 * s.edges as f64, "top 1% hold {top}");
        }
    }

    #[test]
    fn meshes_have_small_degrees() {
        let s = spec(10_000, 11_400, Shape::Mesh, 2);
        let g = generate_graph(&s).unwrap();
        check_shape(&g, &s);
        assert!(degrees(&g).into_iter().max().unwrap() <= 4);
        // Grid neighbours only: ids differ by 1 or by the width.
        let w = 100;
        assert!(g.edge_iter().all(|(u, v, _)| v - u == 1 || v - u == w));

        let dense = GraphSpec {
            directed: true,
            ..spec(1000, 3000, Shape::Mesh, 2)
        };
        let g = generate_graph(&dense).unwrap();
        check_shape(&g, &dense);
        assert!(degrees(&g).into_iter().max().unwrap() <= 8);
        let full = spec(10, 0, Shape::Mesh, 0);
        let max = full.max_edges() as usize;
        let g = generate_graph(&GraphSpec {
            edges: max,
            ..full.clone()
        })
        .unwrap();
        assert_eq!(g.edge_count(), max);
        let err = generate_graph(&GraphSpec {
            edges: max + 1,
            ..full
        })
        .unwrap_err();
        assert!(err.to_string().contains("at most"));
    }

    #[test]
    fn mesh_counts_match_the_edges() {
        for n in 0..200 {
            let grid = MeshGrid::new(n);
            for class in [MeshClass::Grid, MeshClass::Diagonal] {
                let walked: u64 = (0..n as u64)
                    .map(|v| grid.edges(v, class).count() as u64)
                    .sum();
                assert_eq!(grid.count(class), walked, "{n}");
            }
        }
    }

    #[test]
    fn uniform_graphs_have_even_degrees() {
        let s = spec(20_000, 100_000, Shape::Uniform, 4);
        let g = generate_graph(&s).unwrap();
        check_shape(&g, &s);
        assert!(degrees(&g).into_iter().max().unwrap() < 40);
    }

    #[test]
    fn labels_follow_a_power_law() {
        let s = spec(20_000, 100_000, Shape::Uniform, 8);
        let g = generate_graph(&s).unwrap();
        let mut counts = [0usize; 10];
        for &l in g.vertex_labels() {
            counts[l as usize] += 1;
        }
        assert!(counts.windows(2).take(3).all(|w| w[0] > w[1]), "{counts:?}");
        assert!(counts[0] > 5 * counts[9]);
        let mut edge_counts = [0usize; 20];
        for (_, _, l) in g.edge_iter() {
            edge_counts[l as usize] += 1;
        }
        assert!(edge_counts[0] > 10 * edge_counts[19], "{edge_counts:?}");
    }

    #[test]
    fn dense_and_complete_graphs_are_reached_exactly() {
        for shape in [Shape::ScaleFree, Shape::Uniform] {
            for directed in [false, true] {
                let base = GraphSpec {
                    directed,
                    ..spec(60, 0, shape, 13)
                };
                let max = base.max_edges() as usize;
                for m in [max / 2, max - 3, max] {
                    let s = GraphSpec {
                        edges: m,
                        ..base.clone()
                    };
                    let g = generate_graph(&s).unwrap();
                    check_shape(&g, &s);
                }
            }
        }
    }

    #[test]
    fn impossible_specs_are_errors() {
        let err = generate_graph(&spec(4, 7, Shape::Uniform, 0)).unwrap_err();
        assert!(err.to_string().contains("7 edges do not fit"), "{err}");
        for s in [
            GraphSpec {
                vertex_labels: 0,
                ..spec(4, 2, Shape::Uniform, 0)
            },
            GraphSpec {
                labels_per_vertex: 0,
                ..spec(4, 2, Shape::Uniform, 0)
            },
        ] {
            assert!(generate_graph(&s)
                .unwrap_err()
                .to_string()
                .contains("must be at least 1"));
        }
        let s = spec(u32::MAX as usize, 0, Shape::Uniform, 0);
        assert!(generate_graph(&s)
            .unwrap_err()
            .to_string()
            .contains("32-bit"));
        for n in [0, 1] {
            let g = generate_graph(&spec(n, 0, Shape::ScaleFree, 0)).unwrap();
            assert_eq!(g.vertex_count(), n);
        }
    }

    #[test]
    fn vertices_draw_several_labels() {
        let one = generate_graph(&spec(5_000, 20_000, Shape::ScaleFree, 4)).unwrap();
        assert!(!one.has_label_sets());
        let three = generate_graph(&GraphSpec {
            labels_per_vertex: 3,
            ..spec(5_000, 20_000, Shape::ScaleFree, 4)
        })
        .unwrap();
        assert!(three.has_label_sets());
        assert_eq!(
            three.edge_iter().collect::<Vec<_>>(),
            one.edge_iter().collect::<Vec<_>>()
        );
        let mut several = 0;
        for v in 0..one.vertex_count() as VertexId {
            let labels = three.labels_of(v);
            assert!((1..=3).contains(&labels.len()), "vertex {v}: {labels:?}");
            assert!(labels.windows(2).all(|w| w[0] < w[1]), "{labels:?}");
            assert!(labels.contains(&one.label(v)), "the first draw is kept");
            assert!(labels.iter().all(|&l| l < 10));
            several += usize::from(labels.len() > 1);
        }
        // Zipf over 10 labels: two further draws differ from the first often.
        assert!(several > one.vertex_count() / 3, "{several}");
    }

    #[test]
    fn shapes_parse_by_name() {
        for shape in [Shape::ScaleFree, Shape::Mesh, Shape::Uniform] {
            assert_eq!(shape.to_string().parse::<Shape>().unwrap(), shape);
        }
        assert_eq!("Road".parse::<Shape>().unwrap(), Shape::Mesh);
        assert!("tree"
            .parse::<Shape>()
            .unwrap_err()
            .to_string()
            .contains("unknown graph shape"));
    }
}
