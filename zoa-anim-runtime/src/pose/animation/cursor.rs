//! Finding key segments: the segment a time falls in for each track, from
//! the cursor the last sample left (amortized O(1) in forward playback), once
//! per key-time array that consecutive tracks share.

use crate::pose::simd::UniformT;

/// Finds each track's segment at one time, once per distinct key-time array
/// while consecutive tracks share it (glTF exporters usually give every
/// channel of a clip the same times).
pub(super) struct SegmentFinder<'a> {
    times: &'a [f32],
    t: f32,
    /// `(time_start, keys, cursor, segment)` of the last track located.
    last: Option<(u32, u32, u32, Segment)>,
    /// The slerp factors of the last interpolation parameter asked for.
    uniform: Option<(f32, UniformT)>,
}

impl<'a> SegmentFinder<'a> {
    pub(super) fn new(times: &'a [f32], t: f32) -> SegmentFinder<'a> {
        SegmentFinder { times, t, last: None, uniform: None }
    }

    /// The segment of a track whose keys are `times[time_start..][..keys]`.
    #[inline(always)]
    pub(super) fn find(&mut self, time_start: u32, keys: u32, cursor: &mut u32) -> Segment {
        if keys == 1 {
            return Segment::Key(0);
        }
        if let Some((start, k, c, seg)) = self.last
            && start == time_start
            && k == keys
        {
            *cursor = c;
            return seg;
        }
        let times = &self.times[time_start as usize..][..keys as usize];
        let seg = locate(times, cursor, self.t);
        self.last = Some((time_start, keys, *cursor, seg));
        seg
    }

    /// The slerp factors of parameter `alpha`, computed once per value.
    #[inline(always)]
    pub(super) fn uniform(&mut self, alpha: f32) -> UniformT {
        match self.uniform {
            Some((a, u)) if a.to_bits() == alpha.to_bits() => u,
            _ => {
                let u = UniformT::new(alpha);
                self.uniform = Some((alpha, u));
                u
            }
        }
    }
}

/// Where `t` falls, for a track with keys `times`.
#[derive(Debug, Clone, Copy)]
pub(super) enum Segment {
    /// A single key's value (before the first key, after the last, or one key).
    Key(usize),
    /// Between keys `i` and `i + 1` (`times[i] <= t < times[i+1]`), at `alpha`.
    Between(usize, f32, f32),
}

#[inline(always)]
fn locate(times: &[f32], cursor: &mut u32, t: f32) -> Segment {
    let n = times.len();
    let last = n - 1;
    // The job validated `t` as finite, so every comparison below is ordered.
    if t < times[0] || n == 1 {
        return Segment::Key(0);
    }
    if t >= times[last] {
        return Segment::Key(last);
    }
    let i = seek(times, cursor, t);
    let (t0, t1) = (times[i], times[i + 1]);
    Segment::Between(i, (t - t0) / (t1 - t0), t1 - t0)
}

/// Largest `i` with `times[i] <= t`, starting from the cursor.
/// Precondition: `times.len() >= 2` and `times[0] <= t < times[last]`.
#[inline(always)]
pub(super) fn seek(times: &[f32], cursor: &mut u32, t: f32) -> usize {
    let n = times.len();
    let mut i = (*cursor as usize).min(n - 2);
    if t >= times[i] {
        if t >= times[i + 1] {
            // Usual forward step: the next segment, else search what is ahead.
            i += 1;
            if t >= times[i + 1] {
                let ahead = &times[i + 1..];
                i += ahead.partition_point(|&x| x <= t);
            }
        }
    } else {
        i = times[..i].partition_point(|&x| x <= t) - 1;
    }
    *cursor = i as u32;
    i
}
