//! A planned query's candidate sets cut into shares ([`Share`]), once per engine and query:
//! each cut vertex's C(u) sorted by class once (on its GPU where it can be), so that a
//! share's list is one class; on a GPU, one copy of the sets whose cut lists each share
//! rewrites in place, so that millions of candidates are not copied or uploaded again for
//! every share.

use std::borrow::Cow;
use std::ops::Range;
use std::sync::{Arc, Mutex, PoisonError};

use gsi_graph::VertexId;
use rayon::prelude::*;

use crate::candidates::CandidateSets;
use crate::cuda::candidates::{ClassSets, DeviceCandidates};
use crate::engine::{Candidates, Engine};
use crate::error::Result;
use crate::options::{Cut, Share, AXES};
use crate::plan::Plan;

/// One cut vertex: C(u) by class ([`Classes`]).
struct CutVertex {
    vertex: usize,
    /// Its axes of more than one class, the first first.
    axes: Vec<usize>,
    candidates: Classes,
}

/// A cut vertex's candidates.
enum Classes {
    /// Split by class on its first axis on the host, each part sorted.
    Sorted(Split),
    /// Whole, where there are more classes than [`SORTED_CLASSES_MAX`]: each share picks its
    /// own (a grid of millions of shares comes from `--partition`, one share a process).
    Whole(Vec<VertexId>),
    /// Split by class on the device, where a share's cut is two copies there: split there
    /// ([`Engine::classes_on_device`]), or uploaded from the host's split
    /// ([`ShareSpace::classes_to_device`]).
    OnDevice(ClassSets),
}

/// Classes up to which a cut vertex's candidates are split by class once.
const SORTED_CLASSES_MAX: u32 = 1 << 12;

/// Classes up to which a cut vertex has its classes on the device (those of all its axes
/// together, where split there), a bitset each (64 bitsets of the LiveJournal-sized graph:
/// 39 MB).
const DEVICE_CLASSES_MAX: u32 = 64;

/// The cut vertices' candidates split by class, for every engine that cuts one plan
/// ([`crate::search::Planned::adopted_by`]: the engines of a spread query): the first to
/// need a split makes it, the others take it instead of reading C(u) back from their devices
/// and splitting it again. Four GPUs readying p1's shares on the LiveJournal-sized graph each
/// took 16–21 ms to read its 4.8 M candidates back and 17–31 ms to split them, all at once
/// (4 × H100, 2026-11-27).
#[derive(Default)]
pub(crate) struct SharedClasses(Mutex<Vec<(SplitKey, Split)>>);

/// What a split is of: the query vertex, the axis it is split on, and the grid's sides.
type SplitKey = (usize, usize, [u32; AXES]);

/// C(u) split by class: each class's part, sorted.
type Split = Arc<Vec<Vec<VertexId>>>;

impl SharedClasses {
    /// The split `key` names, made by `split` if no engine has made it yet (the others wait
    /// for it rather than make it too).
    fn get_or_split(
        &self,
        key: SplitKey,
        split: impl FnOnce() -> Result<Vec<Vec<VertexId>>>,
    ) -> Result<Split> {
        let mut made = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((_, classes)) = made.iter().find(|(k, _)| *k == key) {
            return Ok(classes.clone());
        }
        let classes = Arc::new(split()?);
        made.push((key, classes.clone()));
        Ok(classes)
    }
}

/// Where the shares' sets live.
enum Sets {
    /// In host memory (the CPU engine): each share cuts a copy.
    Host(CandidateSets),
    /// On a device: the copy each share rewrites (lent to the share that runs), and where
    /// each C(u) has its room in it.
    Device(Option<DeviceCandidates>, Vec<Range<usize>>),
}

/// The candidate sets of a query's shares in one grid, for one engine.
pub(crate) struct ShareSpace {
    sides: [u32; AXES],
    cut: Vec<CutVertex>,
    sets: Sets,
    /// Shares cut so far.
    cuts: u32,
}

impl ShareSpace {
    /// Sorts the cut vertices' candidates by class (on the engine's device where it does so,
    /// else on the host or as another engine split them, `shared`) and readies the sets for
    /// `engine`: sets on the host go to its device once ([`Engine::adopt`]), and sets on a
    /// device are copied there with a room for each list ([`DeviceCandidates::for_shares`]:
    /// an upload shares one list between the query vertices that have it, which a cut must
    /// not).
    ///
    /// # Errors
    /// Device failures.
    pub(crate) fn new(
        candidates: &Candidates,
        plan: &Plan,
        sides: [u32; AXES],
        engine: &mut dyn Engine,
        shared: &SharedClasses,
    ) -> Result<ShareSpace> {
        let sets = match candidates {
            Candidates::Host(sets) => match engine.adopt(sets)? {
                Candidates::Host(sets) => Sets::Host(sets),
                Candidates::Device(sets) => Sets::on_device(sets.for_shares()?),
            },
            Candidates::Device(sets) => Sets::on_device(sets.for_shares()?),
        };
        let cut_steps = plan.cut_steps();
        let any = Share::new(0, sides.iter().product()).expect("a grid of one share or more");
        // Each cut vertex with its axes.
        let mut vertices: Vec<(usize, Vec<usize>)> = Vec::new();
        for axis in (0..AXES).filter(|&a| sides[a] > 1) {
            let u = plan.steps[cut_steps[axis]].vertex;
            match vertices.iter_mut().find(|(v, _)| *v == u) {
                Some((_, axes)) => axes.push(axis),
                None => vertices.push((u, vec![axis])),
            }
        }
        let mut cut: Vec<CutVertex> = Vec::with_capacity(vertices.len());
        for (u, axes) in vertices {
            let axis = axes[0];
            // A vertex whose axes make few classes together is split by them on the device
            // that holds its sets, where the engine does so. Split on the host, four GPUs
            // cut the LiveJournal-sized graph's p5 (a 2 × 4 × 4 grid over two vertices of
            // 4.8 M candidates, the second on two axes) in 150-168 ms each (4 × H200,
            // 2026-11-28); reading one such list back took 16-21 ms and splitting it 17-31,
            // while the other engines waited (4 × H100, 2026-11-27); a vertex on two axes
            // was then cut on the host for every share, 11-13 ms each.
            let cuts: Vec<Cut> = axes.iter().map(|&a| any.cut(sides, a)).collect();
            let on_device = match &sets {
                Sets::Device(Some(device_sets), _)
                    if Cut::combined(&cuts).0 <= u64::from(DEVICE_CLASSES_MAX) =>
                {
                    engine.classes_on_device(device_sets, u, &cuts)?
                }
                _ => None,
            };
            // C(u) as the host holds it where it does, else read from the device.
            let list = || -> Result<Cow<'_, [VertexId]>> {
                Ok(match (candidates, &sets) {
                    (Candidates::Host(host), _) => Cow::Borrowed(host.list(u)),
                    (_, Sets::Host(sets)) => Cow::Borrowed(sets.list(u)),
                    (_, Sets::Device(sets, _)) => {
                        Cow::Owned(sets.as_ref().expect("set above").download_list(u)?)
                    }
                })
            };
            let classes = match on_device {
                Some(classes) => Classes::OnDevice(classes),
                None if sides[axis] <= SORTED_CLASSES_MAX => {
                    Classes::Sorted(shared.get_or_split((u, axis, sides), || {
                        Ok(by_class(&list()?, any.cut(sides, axis), sides[axis]))
                    })?)
                }
                None => Classes::Whole(list()?.into_owned()),
            };
            cut.push(CutVertex {
                vertex: u,
                axes,
                candidates: classes,
            });
        }
        Ok(ShareSpace {
            sides,
            cut,
            sets,
            cuts: 0,
        })
    }

    /// The grid this space cuts.
    pub(crate) fn sides(&self) -> [u32; AXES] {
        self.sides
    }

    /// The candidate sets of `share`: C(u) of each cut vertex cut to the data vertices the
    /// share holds on its axes ([`Share::cut`]; a vertex cut on several axes keeps those
    /// every one of them holds, so each match falls in exactly one share). The sets go back
    /// ([`ShareSpace::restore`]) before the next share.
    ///
    /// # Errors
    /// Device failures.
    pub(crate) fn cut(&mut self, share: Share) -> Result<Candidates> {
        self.cuts += 1;
        if self.cuts == 2 {
            self.classes_to_device()?;
        }
        let sides = self.sides;
        let lists: Vec<(usize, Vec<VertexId>)> = self
            .cut
            .iter()
            .filter_map(|c| {
                let first = share.cut(sides, c.axes[0]);
                let others: Vec<_> = c.axes[1..].iter().map(|&a| share.cut(sides, a)).collect();
                let held = |v: &VertexId| others.iter().all(|o| o.holds(*v));
                let list = match &c.candidates {
                    Classes::Sorted(by_class) => by_class[first.class() as usize]
                        .iter()
                        .copied()
                        .filter(held)
                        .collect(),
                    Classes::Whole(list) => list
                        .iter()
                        .copied()
                        .filter(|&v| first.holds(v) && held(&v))
                        .collect(),
                    // Cut on the device below.
                    Classes::OnDevice(_) => return None,
                };
                Some((c.vertex, list))
            })
            .collect();
        match &mut self.sets {
            Sets::Host(sets) => {
                let mut sets = sets.clone();
                for (u, list) in lists {
                    sets.keep(u, list);
                }
                Ok(Candidates::Host(sets))
            }
            Sets::Device(lent, rooms) => {
                let mut sets = lent.take().expect("the last share's sets were given back");
                let cut = sets.cut_to(&lists, rooms).and_then(|()| {
                    self.cut.iter().try_for_each(|c| match &c.candidates {
                        Classes::OnDevice(classes) => {
                            let cuts: Vec<Cut> =
                                c.axes.iter().map(|&a| share.cut(sides, a)).collect();
                            let class = Cut::combined(&cuts).1 as usize;
                            sets.cut_to_class(c.vertex, rooms[c.vertex].clone(), classes, class)
                        }
                        _ => Ok(()),
                    })
                });
                match cut {
                    Ok(()) => Ok(Candidates::Device(sets)),
                    Err(err) => {
                        *lent = Some(sets);
                        Err(err)
                    }
                }
            }
        }
    }

    /// Uploads the classes of each vertex cut on one axis into at most
    /// [`DEVICE_CLASSES_MAX`] classes, where the sets are on a device and the grid has other
    /// axes (so that each class is cut for several shares): each share's cut of it is then
    /// two copies on the device, not a list gathered, a bitset set and both uploaded on the
    /// host. On four H100s (2026-11-27) the LiveJournal-sized graph's p4, a 4 × 8 grid, took
    /// 408 ms against 460; p1, cut on one axis into 32 classes each used once, 81 against 69
    /// with its classes uploaded. Called at a space's second share: a process of
    /// `--partition` cuts one.
    fn classes_to_device(&mut self) -> Result<()> {
        let Sets::Device(Some(sets), _) = &self.sets else {
            return Ok(());
        };
        let count: u32 = self.sides.iter().product();
        for c in &mut self.cut {
            if let (Classes::Sorted(by_class), &[axis]) = (&c.candidates, c.axes.as_slice()) {
                if self.sides[axis] <= DEVICE_CLASSES_MAX && self.sides[axis] < count {
                    c.candidates = Classes::OnDevice(sets.upload_classes(by_class)?);
                }
            }
        }
        Ok(())
    }

    /// Takes back the sets a share ran on ([`ShareSpace::cut`]).
    pub(crate) fn restore(&mut self, candidates: Candidates) {
        if let (Sets::Device(lent, _), Candidates::Device(sets)) = (&mut self.sets, candidates) {
            *lent = Some(sets);
        }
    }
}

/// `list` split by class on `axis`, each part in the list's order. The millions of
/// candidates of an unlabelled graph are hashed and split on every thread, in blocks: split
/// on one thread, the cut of the LiveJournal-sized graph's sets took each of four H100s
/// 71-191 ms, in blocks 22-100 ms (2026-11-26, docs/BENCHMARKS.md).
fn by_class(list: &[VertexId], axis: Cut, classes: u32) -> Vec<Vec<VertexId>> {
    const BLOCK: usize = 1 << 16;
    let classes = classes as usize;
    let blocks: Vec<Vec<Vec<VertexId>>> = list
        .par_chunks(BLOCK)
        .map(|block| {
            let mut parts = vec![Vec::new(); classes];
            for &v in block {
                parts[axis.class_of(v) as usize].push(v);
            }
            parts
        })
        .collect();
    (0..classes)
        .into_par_iter()
        .map(|class| {
            let mut part = Vec::with_capacity(blocks.iter().map(|b| b[class].len()).sum());
            for block in &blocks {
                part.extend_from_slice(&block[class]);
            }
            part
        })
        .collect()
}

impl Sets {
    /// `sets`, a copy of their own, as the shares' sets on a device.
    fn on_device(sets: DeviceCandidates) -> Sets {
        let rooms = sets.ranges.clone();
        Sets::Device(Some(sets), rooms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_split_in_blocks_keep_each_class_whole_and_in_order() {
        // Several blocks, and a list with gaps, as a filtered C(u) has.
        let list: Vec<VertexId> = (0..300_000).map(|v| 3 * v + v % 7).collect();
        let sides = [7, 1, 1, 1, 1];
        for index in 0..7 {
            let cut = Share::new(index, 7).unwrap().cut(sides, 0);
            let parts = by_class(&list, cut, 7);
            assert_eq!(parts.len(), 7);
            let held: Vec<VertexId> = list.iter().copied().filter(|&v| cut.holds(v)).collect();
            assert!(!held.is_empty());
            assert_eq!(parts[cut.class() as usize], held);
        }
        let sizes: usize = by_class(&list, Share::new(0, 7).unwrap().cut(sides, 0), 7)
            .iter()
            .map(Vec::len)
            .sum();
        assert_eq!(sizes, list.len());
    }

    #[test]
    fn a_split_is_made_once_for_every_engine_that_asks() {
        let shared = SharedClasses::default();
        let sides = [4, 2, 1, 1, 1];
        let made = std::sync::atomic::AtomicU32::new(0);
        let split = || {
            made.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            Ok(vec![vec![1, 5], vec![2], vec![], vec![7]])
        };
        let first = shared.get_or_split((3, 0, sides), split).unwrap();
        let again = shared.get_or_split((3, 0, sides), split).unwrap();
        assert!(Arc::ptr_eq(&first, &again));
        assert_eq!(made.load(std::sync::atomic::Ordering::Relaxed), 1);
        // Another vertex, axis or grid is split anew.
        for key in [(2, 0, sides), (3, 1, sides), (3, 0, [8, 1, 1, 1, 1])] {
            shared.get_or_split(key, split).unwrap();
        }
        assert_eq!(made.load(std::sync::atomic::Ordering::Relaxed), 4);
        // A split that fails is not kept.
        let failed = shared.get_or_split((9, 0, sides), || Err(crate::error::Error::EmptyQuery));
        assert!(failed.is_err());
        shared.get_or_split((9, 0, sides), split).unwrap();
        assert_eq!(made.load(std::sync::atomic::Ordering::Relaxed), 5);
    }
}
