//! Mixing: voices rendered block by block into the interleaved stereo output.

use zoa_anim_core::glam::Vec3;

use super::{BLOCK_FRAMES, NONE, Player, Voice};
use crate::curves::{distance_gain, equal_power_pan};

impl Player {
    fn emitter_position(&self, v: &Voice) -> Vec3 {
        if v.emitter == NONE { self.listener.position } else { self.emitters[v.emitter as usize].position }
    }

    /// Distance gain of a spatial voice (1 for non-spatial voices).
    fn attenuation(&self, v: &Voice) -> f32 {
        if !v.spatial {
            return 1.0;
        }
        let e = self.table.entry(v.entry as usize);
        let d = self.listener.distance_to(self.emitter_position(v));
        distance_gain(e.rolloff, d, self.config.reference_distance, e.max_distance)
    }

    pub(super) fn level_of(&self, v: &Voice) -> f32 {
        v.gain * v.envelope() * self.attenuation(v) * self.bus_gain(v.bus)
    }

    // ----- mixing -------------------------------------------------------

    /// Mixes the next `out.len() / 2` frames into `out` (interleaved stereo,
    /// overwritten) and advances the clock by that many frames. An odd
    /// trailing sample is set to 0 and not counted. Allocation-free.
    pub fn render(&mut self, out: &mut [f32]) {
        out.fill(0.0);
        let frames = out.len() / 2;
        let mut done = 0;
        while done < frames {
            let n = (frames - done).min(BLOCK_FRAMES);
            self.render_block(&mut out[done * 2..(done + n) * 2]);
            done += n;
            self.frame += n as u64;
        }
    }

    fn render_block(&mut self, out: &mut [f32]) {
        let n = out.len() / 2;
        let master = self.config.master_volume;
        for slot in 0..self.voices.len() {
            if !self.voices[slot].active {
                continue;
            }
            let v = self.voices[slot];
            let base = v.gain * self.bus_gain(v.bus) * master;
            let target = if v.spatial {
                let pos = self.emitter_position(&v);
                let pan = equal_power_pan(self.listener.pan_of(pos));
                let g = base * self.attenuation(&v);
                [g * pan[0], g * pan[1]]
            } else {
                [base, base]
            };
            let Some(clip) = self.clips.get(v.clip as usize) else {
                self.end_voice(slot);
                continue;
            };
            let data = clip.samples();
            let channels = clip.channels() as usize;
            let len = clip.frames();
            let v = &mut self.voices[slot];
            let start = if v.fresh { target } else { v.last };
            v.fresh = false;
            let mut ended = false;
            for f in 0..n {
                let i = v.pos as usize;
                if i >= len {
                    ended = true;
                    break;
                }
                let frac = (v.pos - i as f64) as f32;
                let j = if i + 1 < len {
                    i + 1
                } else if v.looping {
                    0
                } else {
                    i
                };
                let t = (f + 1) as f32 / n as f32;
                let env = v.envelope();
                let gl = (start[0] + (target[0] - start[0]) * t) * env;
                let gr = (start[1] + (target[1] - start[1]) * t) * env;
                let (l, r) = if channels == 1 {
                    let s = data[i] + (data[j] - data[i]) * frac;
                    (s, s)
                } else {
                    let l = data[2 * i] + (data[2 * j] - data[2 * i]) * frac;
                    let r = data[2 * i + 1] + (data[2 * j + 1] - data[2 * i + 1]) * frac;
                    if v.spatial {
                        let m = 0.5 * (l + r);
                        (m, m)
                    } else {
                        (l, r)
                    }
                };
                out[2 * f] += l * gl;
                out[2 * f + 1] += r * gr;
                v.played += 1;
                v.pos += v.step;
                if v.looping && v.pos >= len as f64 {
                    v.pos %= len as f64;
                }
                if v.release_total > 0 {
                    v.release_left -= 1;
                    if v.release_left == 0 {
                        ended = true;
                        break;
                    }
                }
            }
            v.last = target;
            if ended || (!v.looping && v.pos as usize >= len) {
                self.end_voice(slot);
            }
        }
    }
}
