//! Many characters (or clip players) updated serially or in parallel, with
//! identical results: the one crowd type.
//!
//! A [`Crowd`] runs its members in runs of 16: each run is updated start to
//! finish by one thread, every member after the first borrowing the first's
//! [`PoseScratch`] (the pose each clip is sampled into, the blending state:
//! rewritten before they are read, so they can be shared, and a shared one
//! stays in cache instead of streaming every member's own copy through
//! memory — at 10,000 humanoids a frame costs a quarter less), and the next
//! members' buffers prefetched while one updates, where that pays. The runs
//! are the same serially, with rayon and on a [`Team`], and nothing is
//! reduced across members, so the results are bit-identical for any thread
//! count. Events are delivered afterwards on one thread in (member, time,
//! kind) order ([`Crowd::deliver_events`]).

use rayon::prelude::*;

use crate::error::RuntimeError;
use crate::pose::compose::PoseScratch;
use crate::pose::player::ClipPlayer;
use crate::pose::team::Team;

/// What a [`Crowd`] updates: a character
/// ([`crate::character::Character`]), a [`ClipPlayer`], or an engine's own
/// animated object built on them. Implementations must not share mutable
/// state between members (the crowd updates them on several threads) and
/// must give the same result with a lent scratch as with their own.
pub trait CrowdMember: Send {
    /// Advances by `dt` seconds and evaluates, with `lent` as the scratch
    /// when it fits (else its own, allocated at its first evaluation).
    fn update_lent(&mut self, dt: f32, lent: Option<&mut PoseScratch>) -> Result<(), RuntimeError>;
    /// Its own scratch, to lend to the next members of its run.
    fn scratch(&mut self) -> Option<&mut PoseScratch>;
    /// Prefetch hints for the buffers the next update reads, in three stages
    /// (0, 1, 2: see the module docs); changes nothing. Default: none.
    fn prefetch_stage(&self, _stage: u8) {}
    /// Prefetch hint for the member's own bytes that the stages and the
    /// update read, before stage 0; changes nothing. Default: all of them.
    fn prefetch_own(&self)
    where
        Self: Sized,
    {
        crate::pose::simd::prefetch(std::slice::from_ref(self), usize::MAX);
    }
    /// Whether a crowd of these prefetches at all on this CPU. Default: on
    /// AMD and Hygon CPUs only (measured on clip players; see
    /// `simd::crowd_prefetch`).
    #[must_use]
    fn prefetches() -> bool
    where
        Self: Sized,
    {
        crate::pose::simd::crowd_prefetch()
    }
}

impl CrowdMember for ClipPlayer {
    #[inline]
    fn update_lent(&mut self, dt: f32, lent: Option<&mut PoseScratch>) -> Result<(), RuntimeError> {
        self.update_with(dt, lent)
    }
    fn scratch(&mut self) -> Option<&mut PoseScratch> {
        self.scratch_mut()
    }
    fn prefetch_stage(&self, stage: u8) {
        self.prefetch(stage);
    }
}

/// Many members (characters of any definitions, or clip players), updated
/// serially or in parallel with identical results (see the module docs).
#[derive(Debug, Clone)]
pub struct Crowd<T> {
    members: Vec<T>,
}

impl<T> Default for Crowd<T> {
    fn default() -> Self {
        Crowd { members: Vec::new() }
    }
}

impl<T: CrowdMember> Crowd<T> {
    /// A crowd of these members.
    #[must_use]
    pub fn new(members: Vec<T>) -> Crowd<T> {
        Crowd { members }
    }
    /// The members.
    #[must_use]
    pub fn members(&self) -> &[T] {
        &self.members
    }
    /// The members, to set their inputs between frames.
    pub fn members_mut(&mut self) -> &mut [T] {
        &mut self.members
    }
    /// Each member with its index (the index events are delivered under).
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (usize, &mut T)> {
        self.members.iter_mut().enumerate()
    }
    /// Adds a member (allocates when the crowd grows).
    pub fn push(&mut self, member: T) {
        self.members.push(member);
    }
    /// Number of members.
    #[must_use]
    pub fn len(&self) -> usize {
        self.members.len()
    }
    /// Whether the crowd is empty.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// Updates every member on the calling thread, in index order.
    /// Allocates nothing after the first frame (which gives each run's first
    /// member its scratch). Stops at, and returns, the first error.
    pub fn update(&mut self, dt: f32) -> Result<(), RuntimeError> {
        for (c, run) in self.members.chunks_mut(RUN).enumerate() {
            if let Some((_, e)) = update_run(run, c * RUN, dt, true) {
                return Err(e);
            }
        }
        Ok(())
    }

    /// Updates every member with rayon on the current thread pool (install a
    /// pool to choose the thread count). Every member is updated; the error
    /// of the lowest-index failing member is returned, whatever the scheduling.
    pub fn update_parallel(&mut self, dt: f32) -> Result<(), RuntimeError> {
        let first = self
            .members
            .par_chunks_mut(RUN)
            .enumerate()
            .filter_map(|(c, run)| update_run(run, c * RUN, dt, false))
            .min_by_key(|(k, _)| *k);
        first.map_or(Ok(()), |(_, e)| Err(e))
    }

    /// Updates every member on `team`: each team member takes a fixed,
    /// contiguous share of the runs (see [`Team`]). Every member is updated;
    /// the error of the lowest-index failing member is returned.
    /// Bit-identical to [`update`](Self::update); allocates nothing after the
    /// first frame.
    pub fn update_on(&mut self, team: &mut Team, dt: f32) -> Result<(), RuntimeError> {
        let lowest = team.try_each_share(&mut self.members, RUN, |start, share| {
            let mut first = None;
            for (c, run) in share.chunks_mut(RUN).enumerate() {
                // Later runs still update; the share's first error is its lowest.
                if let Some(error) = update_run(run, start + c * RUN, dt, false) {
                    first.get_or_insert(error);
                }
            }
            first
        });
        lowest.map_or(Ok(()), |(_, e)| Err(e))
    }
}

impl Crowd<ClipPlayer> {
    /// Total joints over all players.
    #[must_use]
    pub fn joint_count(&self) -> usize {
        self.members.iter().map(|p| p.skeleton().joint_count()).sum()
    }
}

/// Members a crowd worker updates in a row, sharing the first one's scratch
/// (and, where that pays, prefetching the next ones); the serial and
/// parallel passes use the same runs.
const RUN: usize = 16;

/// Updates `run` in order, each member's buffers prefetched while the one
/// before it updates (where that pays), and every member after the first
/// using the first's scratch. Returns the first error with its index in the
/// crowd (`first` is the index of `run[0]`); with `stop`, at that error, else
/// after updating every member.
fn update_run<T: CrowdMember>(run: &mut [T], first: usize, dt: f32, stop: bool) -> Option<(usize, RuntimeError)> {
    let mut error = None;
    for k in 0..run.len() {
        prefetch_ahead(run, k);
        let (lender, rest) = run.split_at_mut(k);
        let lent = lender.first_mut().and_then(CrowdMember::scratch);
        if let Err(e) = rest[0].update_lent(dt, lent)
            && error.is_none()
        {
            error = Some((first + k, e));
            if stop {
                break;
            }
        }
    }
    error
}

/// The prefetch stages for the members after `run[k]`.
#[inline]
fn prefetch_ahead<T: CrowdMember>(run: &[T], k: usize) {
    prefetch_next([run.get(k + 1), run.get(k + 2), run.get(k + 3), run.get(k + 4)]);
}

/// For an engine that updates members in its own order (Bevy's queries):
/// call it before each update with the next four members, `next[0]` the one
/// updated right after, to prefetch them as a [`Crowd`] does (see the module
/// docs): the fourth's own bytes, then deeper stages as each comes closer.
/// Hints only, so any member may be `None` and no result changes; a no-op
/// where prefetching does not pay.
#[inline]
pub fn prefetch_next<T: CrowdMember>(next: [Option<&T>; 4]) {
    if !T::prefetches() {
        return;
    }
    // The member itself first: every later stage reads its fields to find
    // the buffers it points to.
    if let Some(m) = next[3] {
        m.prefetch_own();
    }
    for (m, stage) in [(next[2], 0), (next[1], 1), (next[0], 2)] {
        if let Some(m) = m {
            m.prefetch_stage(stage);
        }
    }
}
