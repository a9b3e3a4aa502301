// A skeleton drawn on a 2D canvas with a perspective orbit camera: drag to
// orbit, wheel to zoom, double-click to re-frame. Joints are points in model
// space (metres, y up); bones join each joint to its parent. Targets (IK
// goals) are free points in the same space, drawn as labelled diamonds.

const GRID = 0.5; // ground grid spacing, metres

/// An orbit camera on `view` (`yaw`, `pitch`, `distance` round `target`)
/// driven on `canvas`: drag turns, the wheel zooms, a double click frames
/// (`view.frame()`); each change redraws (`view.draw()`). Shared by the
/// stick figure and the skinned mesh.
export function orbit(view, canvas) {
  view.yaw = 0.6;
  view.pitch = 0.25;
  view.distance = 4;
  view.target = [0, 1, 0];
  let drag = null;
  canvas.addEventListener('pointerdown', (e) => { drag = [e.clientX, e.clientY]; canvas.setPointerCapture(e.pointerId); });
  canvas.addEventListener('pointermove', (e) => {
    if (!drag) return;
    view.yaw -= (e.clientX - drag[0]) * 0.01;
    view.pitch = Math.max(-1.4, Math.min(1.4, view.pitch + (e.clientY - drag[1]) * 0.01));
    drag = [e.clientX, e.clientY];
    view.draw();
  });
  canvas.addEventListener('pointerup', () => { drag = null; });
  canvas.addEventListener('wheel', (e) => {
    e.preventDefault();
    view.distance = Math.max(0.2, Math.min(200, view.distance * Math.exp(e.deltaY * 0.001)));
    view.draw();
  }, { passive: false });
  canvas.addEventListener('dblclick', () => { view.frame(); view.draw(); });
}

/// Points `view.target` at the centre of `points`' bounding box and returns
/// the box's largest side (at least 0.1), or 0 without points.
export function centre(view, points) {
  if (!points.length) return 0;
  const lo = [Infinity, Infinity, Infinity];
  const hi = [-Infinity, -Infinity, -Infinity];
  for (const p of points) for (let k = 0; k < 3; k++) { lo[k] = Math.min(lo[k], p[k]); hi[k] = Math.max(hi[k], p[k]); }
  view.target = lo.map((l, k) => (l + hi[k]) / 2);
  return Math.max(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2], 0.1);
}

export class SkeletonView {
  constructor(canvas) {
    this.canvas = canvas;
    this.ctx = canvas.getContext('2d');
    this.parents = [];
    this.names = [];
    this.points = [];
    this.marks = new Map(); // joint → {color, label}
    this.extras = []; // points that are not joints: [{at: [x, y, z], from: [x, y, z] | null, color, label}]
    this.targets = []; // [{p: [x, y, z], color, label}]
    this.fov = 0.8;
    orbit(this, canvas);
  }

  /// Sets the joint tree (parents: index or null per joint).
  setSkeleton(parents, names) {
    this.parents = parents;
    this.names = names;
  }

  /// Joint positions: [[x, y, z], ...] or a flat array.
  setPose(points) {
    if (points.length && typeof points[0] === 'number') {
      const out = [];
      for (let i = 0; i + 2 < points.length; i += 3) out.push([points[i], points[i + 1], points[i + 2]]);
      points = out;
    }
    this.points = points;
  }

  /// Free points to mark (IK targets): [{p: [x, y, z], color, label}].
  setTargets(targets) {
    this.targets = targets || [];
  }

  /// Centres the camera on the current pose.
  frame() {
    const size = centre(this, this.points);
    if (size) this.distance = (size * 0.62) / Math.tan(this.fov / 2);
  }

  camera() {
    const cp = Math.cos(this.pitch);
    const eye = [
      this.target[0] + this.distance * cp * Math.sin(this.yaw),
      this.target[1] + this.distance * Math.sin(this.pitch),
      this.target[2] + this.distance * cp * Math.cos(this.yaw),
    ];
    const f = norm(sub(this.target, eye));
    const r = norm(cross(f, [0, 1, 0]));
    const u = cross(r, f);
    return { eye, f, r, u };
  }

  project(p, cam) {
    const d = sub(p, cam.eye);
    const z = dot(d, cam.f);
    if (z < 0.01) return null;
    const { width, height } = this.canvas;
    const scale = height / (2 * Math.tan(this.fov / 2));
    return [width / 2 + (dot(d, cam.r) / z) * scale, height / 2 - (dot(d, cam.u) / z) * scale, z];
  }

  draw() {
    const { ctx, canvas } = this;
    ctx.fillStyle = '#20262e';
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    const cam = this.camera();
    // Ground grid around the target.
    ctx.strokeStyle = '#323b46';
    ctx.lineWidth = 1;
    const cx = Math.round(this.target[0] / GRID) * GRID;
    const cz = Math.round(this.target[2] / GRID) * GRID;
    const n = 8;
    for (let i = -n; i <= n; i++) {
      this.line([cx + i * GRID, 0, cz - n * GRID], [cx + i * GRID, 0, cz + n * GRID], cam);
      this.line([cx - n * GRID, 0, cz + i * GRID], [cx + n * GRID, 0, cz + i * GRID], cam);
    }
    ctx.strokeStyle = '#5a6b7e';
    this.line([cx, 0, cz], [cx + GRID, 0, cz], cam);
    const pts = this.points.map((p) => this.project(p, cam));
    // Bones.
    ctx.lineWidth = 3;
    ctx.lineCap = 'round';
    ctx.strokeStyle = '#d8dee6';
    this.parents.forEach((parent, j) => {
      if (parent === null || parent === undefined || !pts[j] || !pts[parent]) return;
      ctx.beginPath();
      ctx.moveTo(pts[parent][0], pts[parent][1]);
      ctx.lineTo(pts[j][0], pts[j][1]);
      ctx.stroke();
    });
    // Joints, marked ones larger and labelled.
    pts.forEach((p, j) => {
      if (!p) return;
      const m = this.marks.get(j);
      ctx.fillStyle = m ? m.color : '#8fb3ff';
      ctx.beginPath();
      ctx.arc(p[0], p[1], m ? 5 : 2.5, 0, Math.PI * 2);
      ctx.fill();
    });
    // Extra points (grip sockets): a ring, joined to the point they belong to by a dashed line.
    ctx.lineWidth = 2;
    for (const x of this.extras) {
      const p = this.project(x.at, cam);
      const q = x.from && this.project(x.from, cam);
      if (!p) continue;
      ctx.strokeStyle = x.color;
      if (q) {
        ctx.setLineDash([4, 3]);
        ctx.beginPath();
        ctx.moveTo(q[0], q[1]);
        ctx.lineTo(p[0], p[1]);
        ctx.stroke();
        ctx.setLineDash([]);
      }
      ctx.beginPath();
      ctx.arc(p[0], p[1], 7, 0, Math.PI * 2);
      ctx.stroke();
    }
    // Targets: an outlined diamond each.
    const targets = this.targets.map((t) => ({ ...t, q: this.project(t.p, cam) }));
    ctx.lineWidth = 1.5;
    for (const t of targets) {
      if (!t.q) continue;
      const [x, y] = t.q;
      ctx.strokeStyle = t.color;
      ctx.beginPath();
      ctx.moveTo(x, y - 6);
      ctx.lineTo(x + 6, y);
      ctx.lineTo(x, y + 6);
      ctx.lineTo(x - 6, y);
      ctx.closePath();
      ctx.stroke();
    }
    // Labels where they do not cover another: try four corners around the joint, point or target.
    ctx.font = '11px sans-serif';
    const placed = [];
    const free = (b) => placed.every((o) => b[0] > o[2] || b[2] < o[0] || b[1] > o[3] || b[3] < o[1]);
    const labelled = [...this.marks].map(([j, m]) => [pts[j], m])
      .concat(this.extras.map((x) => [this.project(x.at, cam), x]))
      .concat(targets.map((t) => [t.q, t]));
    for (const [p, m] of labelled) {
      if (!p || !m.label) continue;
      const w = ctx.measureText(m.label).width;
      const spots = [[p[0] + 7, p[1] - 5], [p[0] - 7 - w, p[1] - 5], [p[0] + 7, p[1] + 13], [p[0] - 7 - w, p[1] + 13]];
      for (const [x, y] of spots) {
        const box = [x - 1, y - 10, x + w + 1, y + 2];
        if (!free(box)) continue;
        placed.push(box);
        ctx.fillStyle = m.color;
        ctx.fillText(m.label, x, y);
        break;
      }
    }
  }

  line(a, b, cam) {
    const p = this.project(a, cam);
    const q = this.project(b, cam);
    if (!p || !q) return;
    this.ctx.beginPath();
    this.ctx.moveTo(p[0], p[1]);
    this.ctx.lineTo(q[0], q[1]);
    this.ctx.stroke();
  }
}

const sub = (a, b) => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const dot = (a, b) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const cross = (a, b) => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
const norm = (a) => { const l = Math.hypot(a[0], a[1], a[2]) || 1; return [a[0] / l, a[1] / l, a[2] / l]; };
