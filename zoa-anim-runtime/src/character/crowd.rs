//! Many characters, updated serially or in parallel with identical results.

use rayon::prelude::*;

use super::delivery::CharacterEventReceiver;
use super::state::Character;
use crate::error::RuntimeError;
use crate::team::Team;

/// A crowd of characters (of any definitions). Each character is advanced
/// and evaluated start to finish by one thread with nothing shared mutably,
/// so [`update_parallel`](Self::update_parallel) is bit-identical to
/// [`update`](Self::update) for any thread count; events are delivered
/// afterwards in (character, time, kind) order.
#[derive(Debug, Default)]
pub struct CharacterCrowd {
    characters: Vec<Character>,
}

impl CharacterCrowd {
    /// A crowd of these characters.
    #[must_use]
    pub fn new(characters: Vec<Character>) -> CharacterCrowd {
        CharacterCrowd { characters }
    }
    /// The characters.
    #[must_use]
    pub fn characters(&self) -> &[Character] {
        &self.characters
    }
    /// The characters, to set gameplay inputs between frames.
    pub fn characters_mut(&mut self) -> &mut [Character] {
        &mut self.characters
    }
    /// Adds a character (allocates when the crowd grows).
    pub fn push(&mut self, character: Character) {
        self.characters.push(character);
    }
    /// Number of characters.
    #[must_use]
    pub fn len(&self) -> usize {
        self.characters.len()
    }
    /// Whether the crowd is empty.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.characters.is_empty()
    }

    /// Updates every character on the calling thread, in index order.
    /// Allocation-free; stops at, and returns, the first error.
    pub fn update(&mut self, dt: f32) -> Result<(), RuntimeError> {
        self.characters.iter_mut().try_for_each(|c| c.update(dt))
    }

    /// Updates every character with rayon on the current thread pool (install
    /// a pool to choose the thread count). Every character is updated; the
    /// error of the lowest-index failing character is returned.
    pub fn update_parallel(&mut self, dt: f32) -> Result<(), RuntimeError> {
        let first = self
            .characters
            .par_iter_mut()
            .enumerate()
            .filter_map(|(k, c)| c.update(dt).err().map(|e| (k, e)))
            .min_by_key(|(k, _)| *k);
        match first {
            Some((_, e)) => Err(e),
            None => Ok(()),
        }
    }

    /// Updates every character on `team`: each member takes a fixed,
    /// contiguous share of the crowd (see [`Team`]). Every character is
    /// updated; the error of the lowest-index failing character is
    /// returned. Bit-identical to [`update`](Self::update); allocation-free.
    pub fn update_on(&mut self, team: &mut Team, dt: f32) -> Result<(), RuntimeError> {
        let lowest = team.try_each_share(&mut self.characters, 1, |start, share| {
            let mut first = None;
            for (k, c) in share.iter_mut().enumerate() {
                // Later characters still update; the share's first error is its lowest.
                if let Err(e) = c.update(dt) {
                    first.get_or_insert((start + k, e));
                }
            }
            first
        });
        lowest.map_or(Ok(()), |(_, e)| Err(e))
    }

    /// Delivers every character's queued events, character by character in
    /// index order, each in time / kind / queue order; clears the queues.
    pub fn deliver_events(&mut self, receiver: &mut dyn CharacterEventReceiver) {
        for (i, c) in self.characters.iter_mut().enumerate() {
            c.deliver_events(i, receiver);
        }
    }
}
