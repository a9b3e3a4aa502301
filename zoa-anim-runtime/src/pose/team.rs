//! A team of worker threads that stays awake between frames.
//!
//! A crowd updated once per frame does one fork-join per frame. With rayon,
//! an idle worker parks after a few dozen yields, so when frames follow one
//! another the other threads are asleep at the start of almost every frame
//! and each pays a futex wake-up (tens of microseconds on a virtual machine)
//! before it takes its share. A [`Team`] keeps `members − 1` threads that
//! spin for a bounded time after each job ([`Team::with_spin`], default
//! 200 µs) before they park, the way OpenMP teams wait, and gives every
//! member a fixed share of each job: member `k` of `m` always takes the
//! `k`-th of `m` contiguous slices. The caller is member 0, so a team of one
//! runs everything on the calling thread and starts no thread.
//!
//! The split never changes what a member computes, only who computes it, so
//! the crowds' results through a team are bit-identical to their serial
//! updates. Publishing a job allocates nothing.
//!
//! The trade-off: a game that updates its crowd once per 16 ms frame gets
//! the same wake-ups as with rayon (the team has parked by the next frame)
//! plus up to 200 µs of spinning per worker per frame; one that runs several
//! crowd passes a frame, or back-to-back frames as `zoa-anim bench` does,
//! gets its workers already awake. `with_spin(Duration::ZERO)` parks at once.

use std::any::Any;
use std::cell::UnsafeCell;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::error::RuntimeError;

/// How long a worker spins after a job before it parks, by default.
pub const DEFAULT_SPIN: Duration = Duration::from_micros(200);

/// The job of the current epoch, its lifetime erased (see [`Team::run`]).
type Job = &'static (dyn Fn(usize) + Sync);

/// What the caller and the workers share.
struct Shared {
    /// Bumped to publish a job (or, with `shutdown`, to stop).
    epoch: AtomicU64,
    /// The published job: written by the caller only while no worker reads
    /// it (before the epoch is bumped, after every worker reported done).
    job: UnsafeCell<Option<Job>>,
    /// Workers that finished the current epoch's job.
    done: AtomicUsize,
    /// Workers parked (or about to park) on `wake`.
    sleepers: AtomicUsize,
    lock: Mutex<()>,
    wake: Condvar,
    shutdown: AtomicBool,
    /// A worker's panic, re-raised on the caller's thread.
    panic: Mutex<Option<Box<dyn Any + Send>>>,
    panicked: AtomicBool,
    spin: Duration,
}

// SAFETY: `job` is the only field that is not `Sync`. It is written by the
// thread that owns the team (`&mut Team`) only while no worker can read it:
// before the epoch store that publishes it (release; workers load the epoch
// with acquire before reading `job`) and after every worker has reported
// done for the epoch (acquire on `done`; workers never read `job` again
// until the next epoch). The job itself is `Sync`.
unsafe impl Sync for Shared {}

/// A fixed team of threads that run jobs together (see the module docs).
pub struct Team {
    shared: Arc<Shared>,
    workers: Vec<JoinHandle<()>>,
}

impl std::fmt::Debug for Team {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Team").field("members", &self.members()).field("spin", &self.shared.spin).finish()
    }
}

impl Team {
    /// A team of `members` threads, the caller included (0 counts as 1):
    /// starts `members − 1` workers that spin [`DEFAULT_SPIN`] after a job.
    pub fn new(members: usize) -> Result<Team, RuntimeError> {
        Team::with_spin(members, DEFAULT_SPIN)
    }

    /// [`Team::new`] with the time a worker spins after a job before it
    /// parks.
    pub fn with_spin(members: usize, spin: Duration) -> Result<Team, RuntimeError> {
        let shared = Arc::new(Shared {
            epoch: AtomicU64::new(0),
            job: UnsafeCell::new(None),
            done: AtomicUsize::new(0),
            sleepers: AtomicUsize::new(0),
            lock: Mutex::new(()),
            wake: Condvar::new(),
            shutdown: AtomicBool::new(false),
            panic: Mutex::new(None),
            panicked: AtomicBool::new(false),
            spin,
        });
        let mut team = Team { shared, workers: Vec::new() };
        for member in 1..members.max(1) {
            let shared = Arc::clone(&team.shared);
            let worker = std::thread::Builder::new()
                .name(format!("zoa-team-{member}"))
                .spawn(move || work(&shared, member))
                .map_err(|e| RuntimeError::Threads(format!("cannot start team worker {member}: {e}")))?;
            // On an error, dropping `team` stops the workers started so far.
            team.workers.push(worker);
        }
        Ok(team)
    }

    /// Members, the calling thread included.
    #[must_use]
    pub fn members(&self) -> usize {
        self.workers.len() + 1
    }

    /// Runs `job(k)` once for every member `k` (0 on the calling thread) and
    /// returns when all have returned. A member's panic is re-raised here
    /// after every member finished. Allocation-free.
    pub fn run(&mut self, job: &(dyn Fn(usize) + Sync)) {
        let workers = self.workers.len();
        if workers == 0 {
            job(0);
            return;
        }
        let shared = &*self.shared;
        // SAFETY: the reference only lives in `shared.job` until the wait
        // below has seen every worker done, and workers call it only between
        // seeing this epoch and reporting done; this function does not
        // return (nor unwind: the caller's own share is caught) before that,
        // so `job` outlives every use.
        let erased: Job = unsafe { std::mem::transmute::<&(dyn Fn(usize) + Sync), Job>(job) };
        // SAFETY: no worker reads `job` now (see `Shared`).
        unsafe { *shared.job.get() = Some(erased) };
        shared.done.store(0, Ordering::Relaxed);
        shared.epoch.fetch_add(1, Ordering::SeqCst);
        if shared.sleepers.load(Ordering::SeqCst) > 0 {
            let _guard = shared.lock.lock().unwrap_or_else(PoisonError::into_inner);
            shared.wake.notify_all();
        }
        let own = catch_unwind(AssertUnwindSafe(|| job(0)));
        let mut spins = 0u32;
        while shared.done.load(Ordering::Acquire) < workers {
            if spins < 1 << 14 {
                spins += 1;
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
        // SAFETY: every worker is done with this epoch.
        unsafe { *shared.job.get() = None };
        // Taken whatever happens, so that a later job does not re-raise it.
        let worker_panic = shared
            .panicked
            .swap(false, Ordering::Relaxed)
            .then(|| shared.panic.lock().unwrap_or_else(PoisonError::into_inner).take());
        if let Err(payload) = own {
            resume_unwind(payload);
        }
        if let Some(payload) = worker_panic {
            resume_unwind(payload.unwrap_or_else(|| Box::new("a team worker panicked")));
        }
    }

    /// Calls `f(first, share)` for each member's share of `items`, the
    /// members' shares contiguous and split on multiples of `granule` items
    /// (`first` is the index of `share[0]` in `items`); members without a
    /// share do not call `f`. The split depends only on `items.len()`,
    /// `granule` and the member count.
    pub fn for_each_share<T: Send, F: Fn(usize, &mut [T]) + Sync>(&mut self, items: &mut [T], granule: usize, f: F) {
        let len = items.len();
        let granule = granule.max(1);
        let groups = len.div_ceil(granule);
        let members = self.members();
        let base = SharedSlice(items.as_mut_ptr());
        let bound = |k: usize| {
            // `groups · k` fits in 64 bits for any real crowd; the 128-bit
            // division (a library call, ~1% of a one-character frame) is
            // only the fallback.
            let group = match groups.checked_mul(k) {
                Some(product) => product / members,
                None => (groups as u128 * k as u128 / members as u128) as usize,
            };
            group.saturating_mul(granule).min(len)
        };
        self.run(&|k| {
            let (start, end) = (bound(k), bound(k + 1));
            if start < end {
                // SAFETY: members' ranges `bound(k)..bound(k + 1)` are
                // disjoint and inside `items`, which `run` keeps borrowed
                // mutably until every member has returned.
                let share = unsafe { std::slice::from_raw_parts_mut(base.at(start), end - start) };
                f(start, share);
            }
        });
    }
}

impl Team {
    /// [`for_each_share`](Self::for_each_share) for work that can fail: `f`
    /// returns its share's first error with that item's index in `items`
    /// (and may go on with the rest of its share); returns the error of the
    /// lowest index over all shares, whichever member reports first.
    pub(crate) fn try_each_share<T: Send, E: Send, F>(
        &mut self,
        items: &mut [T],
        granule: usize,
        f: F,
    ) -> Option<(usize, E)>
    where
        F: Fn(usize, &mut [T]) -> Option<(usize, E)> + Sync,
    {
        let lowest = Mutex::new(None::<(usize, E)>);
        self.for_each_share(items, granule, |first, share| {
            if let Some((k, e)) = f(first, share) {
                let mut lowest = lowest.lock().unwrap_or_else(PoisonError::into_inner);
                if lowest.as_ref().is_none_or(|(held, _)| k < *held) {
                    *lowest = Some((k, e));
                }
            }
        });
        lowest.into_inner().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The base of a slice whose disjoint parts the members take.
struct SharedSlice<T>(*mut T);

impl<T> SharedSlice<T> {
    /// `base + offset` (a method, so closures capture the whole wrapper).
    fn at(&self, offset: usize) -> *mut T {
        self.0.wrapping_add(offset)
    }
}

// SAFETY: members only form disjoint subslices from the pointer (see
// `for_each_share`), and `T: Send` lets each member own its part.
unsafe impl<T: Send> Sync for SharedSlice<T> {}

impl Drop for Team {
    fn drop(&mut self) {
        let shared = &*self.shared;
        shared.shutdown.store(true, Ordering::SeqCst);
        shared.epoch.fetch_add(1, Ordering::SeqCst);
        {
            let _guard = shared.lock.lock().unwrap_or_else(PoisonError::into_inner);
            shared.wake.notify_all();
        }
        for worker in self.workers.drain(..) {
            // A worker's panic was already re-raised by `run`.
            let _ = worker.join();
        }
    }
}

/// A worker's loop: wait for a new epoch (spinning, then parked), run its
/// share, report done.
fn work(shared: &Shared, member: usize) {
    let mut seen = 0u64;
    loop {
        seen = wait_for_epoch(shared, seen);
        if shared.shutdown.load(Ordering::SeqCst) {
            return;
        }
        // SAFETY: the epoch load (acquire) that saw this epoch happened after
        // the caller wrote `job`; the caller does not touch it again until
        // this worker reports done below.
        let job = unsafe { *shared.job.get() };
        if let Some(job) = job
            && let Err(payload) = catch_unwind(AssertUnwindSafe(|| job(member)))
        {
            *shared.panic.lock().unwrap_or_else(PoisonError::into_inner) = Some(payload);
            shared.panicked.store(true, Ordering::Relaxed);
        }
        shared.done.fetch_add(1, Ordering::Release);
    }
}

/// Waits until the epoch differs from `seen` and returns it: spins for the
/// team's spin time, then parks on the condition variable.
fn wait_for_epoch(shared: &Shared, seen: u64) -> u64 {
    let start = Instant::now();
    let mut spins = 0u32;
    loop {
        let epoch = shared.epoch.load(Ordering::Acquire);
        if epoch != seen {
            return epoch;
        }
        spins = spins.wrapping_add(1);
        if spins.is_multiple_of(64) && start.elapsed() >= shared.spin {
            break;
        }
        std::hint::spin_loop();
    }
    let mut guard = shared.lock.lock().unwrap_or_else(PoisonError::into_inner);
    // Registered before the epoch is checked again: `run` bumps the epoch
    // before it reads `sleepers`, so either it sees this sleeper (and
    // notifies under the lock, which this thread holds until it waits) or
    // this load sees its epoch.
    shared.sleepers.fetch_add(1, Ordering::SeqCst);
    let epoch = loop {
        let epoch = shared.epoch.load(Ordering::SeqCst);
        if epoch != seen {
            break epoch;
        }
        guard = shared.wake.wait(guard).unwrap_or_else(PoisonError::into_inner);
    };
    shared.sleepers.fetch_sub(1, Ordering::SeqCst);
    drop(guard);
    epoch
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_member_runs_each_job_once() {
        for members in [1, 2, 3] {
            let mut team = Team::with_spin(members, Duration::from_micros(50)).unwrap();
            assert_eq!(team.members(), members);
            let counts: Vec<AtomicUsize> = (0..members).map(|_| AtomicUsize::new(0)).collect();
            for _ in 0..200 {
                team.run(&|k| {
                    counts[k].fetch_add(1, Ordering::Relaxed);
                });
            }
            assert!(counts.iter().all(|c| c.load(Ordering::Relaxed) == 200));
        }
    }

    #[test]
    fn parked_workers_wake_for_the_next_job() {
        let mut team = Team::with_spin(2, Duration::ZERO).unwrap();
        let hits = AtomicUsize::new(0);
        for _ in 0..20 {
            std::thread::sleep(Duration::from_millis(1));
            team.run(&|_| {
                hits.fetch_add(1, Ordering::Relaxed);
            });
        }
        assert_eq!(hits.load(Ordering::Relaxed), 40);
    }

    #[test]
    fn jobs_published_while_workers_park_are_never_lost() {
        // No spinning: every job races the workers' way into the condition
        // variable. A lost wake-up would hang here.
        let mut team = Team::with_spin(3, Duration::ZERO).unwrap();
        let hits = AtomicUsize::new(0);
        for _ in 0..3000 {
            team.run(&|_| {
                hits.fetch_add(1, Ordering::Relaxed);
            });
        }
        assert_eq!(hits.load(Ordering::Relaxed), 9000);
    }

    #[test]
    fn shares_cover_the_items_once_on_granule_boundaries() {
        for members in [1, 2, 3] {
            let mut team = Team::new(members).unwrap();
            for len in [0, 1, 15, 16, 17, 100, 1000] {
                let mut items = vec![0u32; len];
                let starts = Mutex::new(Vec::new());
                team.for_each_share(&mut items, 16, |first, share| {
                    starts.lock().unwrap().push((first, share.len()));
                    for (i, x) in share.iter_mut().enumerate() {
                        *x += (first + i) as u32 + 1;
                    }
                });
                assert!(items.iter().enumerate().all(|(i, &x)| x == i as u32 + 1), "{members} members, {len} items");
                let mut starts = starts.into_inner().unwrap();
                starts.sort_unstable();
                assert!(starts.len() <= members);
                for &(first, _) in &starts {
                    assert_eq!(first % 16, 0);
                }
            }
        }
    }

    #[test]
    fn the_lowest_failing_index_wins_whoever_reports_first() {
        for members in [1, 2, 3] {
            let mut team = Team::new(members).unwrap();
            let mut items: Vec<u32> = (0..48).collect();
            let failing = [20, 40, 3, 33];
            let lowest = team.try_each_share(&mut items, 4, |first, share| {
                let mut error = None;
                for (i, x) in share.iter_mut().enumerate() {
                    *x += 100; // every item is still visited
                    if failing.contains(&(first + i)) {
                        error.get_or_insert((first + i, format!("item {}", first + i)));
                    }
                }
                error
            });
            assert_eq!(lowest, Some((3, "item 3".to_owned())), "{members} members");
            assert!(items.iter().enumerate().all(|(i, &x)| x == i as u32 + 100));
            assert_eq!(team.try_each_share(&mut items, 4, |_, _| None::<(usize, ())>), None);
        }
    }

    #[test]
    fn a_worker_panic_reaches_the_caller_and_the_team_goes_on() {
        let mut team = Team::new(2).unwrap();
        let caught = catch_unwind(AssertUnwindSafe(|| {
            team.run(&|k| {
                if k == 1 {
                    panic!("member one fails");
                }
            });
        }));
        let payload = caught.expect_err("the worker's panic is re-raised");
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"member one fails"));
        let hits = AtomicUsize::new(0);
        team.run(&|_| {
            hits.fetch_add(1, Ordering::Relaxed);
        });
        assert_eq!(hits.load(Ordering::Relaxed), 2);
        // When the caller's share and a worker's both panic, the caller's is
        // re-raised and the worker's does not come back at the next job.
        let caught = catch_unwind(AssertUnwindSafe(|| team.run(&|k| panic!("member {k} fails"))));
        assert_eq!(caught.expect_err("re-raised").downcast_ref::<String>().map(String::as_str), Some("member 0 fails"));
        team.run(&|_| {
            hits.fetch_add(1, Ordering::Relaxed);
        });
        assert_eq!(hits.load(Ordering::Relaxed), 4);
    }
}
