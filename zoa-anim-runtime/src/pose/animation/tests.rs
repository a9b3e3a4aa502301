//! Segment finding and batch planning.

use super::cursor::seek;
use super::pack::plan_batches;
use super::*;

#[test]
fn seek_moves_forward_backward_and_jumps() {
    let times = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0];
    let mut c = 0;
    assert_eq!(seek(&times, &mut c, 0.5), 0);
    assert_eq!(seek(&times, &mut c, 1.0), 1);
    assert_eq!(seek(&times, &mut c, 1.5), 1);
    assert_eq!(seek(&times, &mut c, 2.5), 2);
    assert_eq!(seek(&times, &mut c, 4.9), 4);
    assert_eq!(seek(&times, &mut c, 0.1), 0);
    assert_eq!(seek(&times, &mut c, 3.0), 3);
    assert_eq!(seek(&times, &mut c, 2.999), 2);
    let mut wild = 99;
    assert_eq!(seek(&times, &mut wild, 4.5), 4);
    // Duplicate key times: the zero-width segment is never chosen.
    let dup = [0.0, 1.0, 1.0, 2.0];
    let mut c = 0;
    assert_eq!(seek(&dup, &mut c, 1.0), 2);
    assert_eq!(seek(&dup, &mut c, 0.5), 0);
}

/// Exporters key every joint: a block mixes moving joints with constant
/// ones on other key times. The constant tracks join the moving tracks'
/// batch; a block of constants alone is one one-key batch; tracks that
/// share their times with no other track of their block form a lane
/// batch, unless only one does (sampled alone); cubic tracks never batch.
#[test]
fn constant_tracks_join_their_blocks_batch() {
    let h = |joint: u16, time_start: u32, keys: u32, value_start: u32, interpolation| TrackHeader {
        joint,
        interpolation,
        time_start,
        keys,
        value_start,
    };
    let lin = Interpolation::Linear;
    // Values: track `v` key `k` is `[v, k, 0, 0]`, except tracks from 100,
    // whose keys all hold `[v, 0, 0, 0]`.
    let value = |h: &TrackHeader, k: usize| {
        let v = h.value_start as f32;
        if h.value_start >= 100 { [v, 0.0, 0.0, 0.0] } else { [v, k as f32, 0.0, 0.0] }
    };
    let headers = [
        h(0, 0, 30, 1, lin),
        h(1, 0, 30, 2, lin),
        h(2, 30, 2, 100, lin),
        h(3, 30, 2, 101, Interpolation::Step),
        h(8, 30, 2, 102, lin),
        h(9, 32, 5, 103, lin),
        h(16, 0, 30, 3, lin),
        h(17, 32, 5, 104, lin),
        h(24, 0, 30, 4, Interpolation::CubicSpline),
        h(40, 0, 30, 5, lin),
        h(48, 0, 30, 6, lin),
        h(50, 32, 5, 7, Interpolation::Step),
        h(53, 30, 2, 8, lin),
    ];
    let (groups, lanes, alone) = plan_batches(&headers, &value);
    let summary: Vec<_> = groups
        .iter()
        .map(|g| (g.block, g.time_start, g.keys, g.tracks.iter().map(|t| t.0.joint).collect::<Vec<_>>()))
        .collect();
    assert_eq!(summary, [(0, 0, 30, vec![0, 1, 2, 3]), (2, 0, 30, vec![16, 17]), (1, 30, 1, vec![8, 9])]);
    let constant: Vec<_> = groups[0].tracks.iter().map(|t| t.1).collect();
    assert_eq!(constant, [false, false, true, true]);
    let alone: Vec<_> = alone.iter().map(|&(h, c)| (h.joint, c)).collect();
    assert_eq!(alone, [(24, false), (40, false)]);
    let lanes: Vec<Vec<_>> = lanes.iter().map(|l| l.iter().map(|&(h, c)| (h.joint, c)).collect()).collect();
    assert_eq!(lanes, [vec![(48, false), (50, false), (53, false)]]);
}
