//! Test scaffolding shared by the workspace's tests and benchmarks. It is a
//! dev-dependency only and never published: library crates must not depend on
//! it normally (the layering check rejects that).
//!
//! - [`alloc`]: a counting global allocator, to prove a path allocates nothing
//!   (process-wide or on the calling thread only).
//! - [`skeletons`]: the Mixamo-named humanoid used by the IK and runtime tests,
//!   the Quaternius armature (a Blender game rig), and builders from
//!   `(name, parent, translation)` rows or from joints placed in model space.
//! - [`clips`]: track and clip builders (the humanoid's knee-bending clip).
//! - [`gltf`]: a glTF document built in memory, written as GLB or JSON glTF.
//! - [`cli`]: running the `zoa-anim` binary and reading its output.
//! - [`paths`]: the repository, its fixtures, the optional shared assets and
//!   fresh temporary folders.
//! - [`three`]: three.js's quaternion and property-mixer arithmetic in `f64`,
//!   the oracle for pose blending.
//!
//! ```
//! use zoa_test_support::{alloc, skeletons};
//!
//! let humanoid = skeletons::humanoid();
//! assert_eq!(humanoid.joint_count(), skeletons::HUMANOID.len());
//! // Without `#[global_allocator]` set to `CountingAllocator` nothing is counted.
//! assert_eq!(alloc::allocations_during(|| drop(vec![1u8; 16])), 0);
//! ```

#![deny(missing_docs)]
#![warn(clippy::must_use_candidate)]

pub mod alloc;
pub mod cli;
pub mod clips;
pub mod gltf;
pub mod paths;
pub mod skeletons;
pub mod three;

/// The `tempfile` crate, for [`tempfile::TempDir`] in signatures.
pub use tempfile;
