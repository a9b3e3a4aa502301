// The character's skinned mesh in WebGL (version 1, no library): vertex
// skinning in the vertex shader from the runtime's skinning matrices
// (`model · inverse bind`, one per joint, sent with each live frame), two
// lights (a key light and a dim fill, both sides lit), a ground grid, an
// orbit camera (drag to orbit, wheel to zoom, double-click to frame), and
// the stick figure as an overlay that can be switched off.
//
// What it covers: one skin (the model's first, the character's skeleton)
// and every triangle primitive it deforms, merged into one mesh by the
// server; no textures or materials (one colour); no morph targets (the
// runtime evaluates their weights, the mesh data does not carry targets
// yet). Joint matrices are uniforms, so a rig may have at most as many
// joints as the GPU's vertex uniforms allow (checked: `error` says why).

import { centre, orbit } from './skeleton_view.js';

const VERTEX = `
attribute vec3 a_pos; attribute vec3 a_nrm; attribute vec4 a_jnt; attribute vec4 a_wgt;
uniform mat4 u_joints[JOINTS]; uniform mat4 u_view_proj;
varying vec3 v_nrm;
void main() {
  mat4 s = a_wgt.x * u_joints[int(a_jnt.x)] + a_wgt.y * u_joints[int(a_jnt.y)]
         + a_wgt.z * u_joints[int(a_jnt.z)] + a_wgt.w * u_joints[int(a_jnt.w)];
  v_nrm = (s * vec4(a_nrm, 0.0)).xyz;
  gl_Position = u_view_proj * (s * vec4(a_pos, 1.0));
}`;
const FRAGMENT = `
precision mediump float;
varying vec3 v_nrm; uniform vec3 u_color;
void main() {
  vec3 n = normalize(v_nrm);
  float key = abs(dot(n, normalize(vec3(0.4, 0.8, 0.45))));
  float fill = abs(dot(n, normalize(vec3(-0.6, 0.2, -0.5))));
  gl_FragColor = vec4(u_color * (0.28 + 0.62 * key + 0.18 * fill), 1.0);
}`;
const LINE_VERTEX = 'attribute vec3 a_pos; uniform mat4 u_view_proj; void main() { gl_Position = u_view_proj * vec4(a_pos, 1.0); gl_PointSize = 5.0; }';
const LINE_FRAGMENT = 'precision mediump float; uniform vec4 u_color; void main() { gl_FragColor = u_color; }';

export class MeshView {
  constructor(canvas) {
    this.canvas = canvas;
    this.gl = canvas.getContext('webgl', { antialias: true, preserveDrawingBuffer: true });
    this.error = this.gl ? null : 'WebGL is not available in this browser';
    this.mesh = null;
    this.skin = null;
    this.points = [];
    this.parents = [];
    this.stick = true;
    if (this.gl) this.lines = program(this.gl, LINE_VERTEX, LINE_FRAGMENT);
    orbit(this, canvas);
  }

  /// The mesh (flat arrays from `/api/live/mesh`) for a rig of `joints` joints. False (with `error`) when it cannot be drawn.
  setMesh(mesh, joints) {
    const gl = this.gl;
    if (!gl) return false;
    const limit = Math.floor((gl.getParameter(gl.MAX_VERTEX_UNIFORM_VECTORS) - 8) / 4);
    if (joints > limit) { this.error = `the rig has ${joints} joints; this GPU skins at most ${limit}`; return false; }
    const big = mesh.positions.length / 3 > 65535;
    if (big && !gl.getExtension('OES_element_index_uint')) { this.error = 'the mesh needs 32-bit indices, which this GPU lacks'; return false; }
    const vertex = VERTEX.replace('JOINTS', String(Math.max(1, joints)));
    this.skinned = program(gl, vertex, FRAGMENT);
    if (!this.skinned) { this.error = 'the skinning shader does not compile here'; return false; }
    const buffer = (data, target = gl.ARRAY_BUFFER) => {
      const b = gl.createBuffer();
      gl.bindBuffer(target, b);
      gl.bufferData(target, data, gl.STATIC_DRAW);
      return b;
    };
    this.mesh = {
      pos: buffer(new Float32Array(mesh.positions)),
      nrm: buffer(new Float32Array(mesh.normals)),
      jnt: buffer(new Float32Array(mesh.joints)),
      wgt: buffer(new Float32Array(mesh.weights)),
      idx: buffer(big ? new Uint32Array(mesh.indices) : new Uint16Array(mesh.indices), gl.ELEMENT_ARRAY_BUFFER),
      count: mesh.indices.length,
      type: big ? gl.UNSIGNED_INT : gl.UNSIGNED_SHORT,
      joints,
    };
    this.error = null;
    return true;
  }

  /// The joint tree for the stick figure.
  setSkeleton(parents) { this.parents = parents; }

  /// A frame: skinning matrices (16 a joint) and joint positions (3 a joint).
  setPose(skin, joints) {
    this.skin = skin ? new Float32Array(skin) : null;
    this.points = [];
    for (let i = 0; i + 2 < joints.length; i += 3) this.points.push([joints[i], joints[i + 1], joints[i + 2]]);
  }

  /// Centres the camera on the figure.
  frame() {
    const size = centre(this, this.points);
    if (size) this.distance = size * 1.9;
  }

  viewProj() {
    const w = this.canvas.width;
    const h = this.canvas.height;
    const cp = Math.cos(this.pitch);
    const eye = [this.target[0] + this.distance * cp * Math.sin(this.yaw), this.target[1] + this.distance * Math.sin(this.pitch),
      this.target[2] + this.distance * cp * Math.cos(this.yaw)];
    return mul(perspective(0.8, w / h, this.distance * 0.02, this.distance * 20), lookAt(eye, this.target));
  }

  draw() {
    const gl = this.gl;
    if (!gl) return;
    gl.viewport(0, 0, this.canvas.width, this.canvas.height);
    gl.clearColor(0.125, 0.149, 0.18, 1);
    gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
    gl.enable(gl.DEPTH_TEST);
    const vp = this.viewProj();
    this.drawGrid(vp);
    if (this.mesh && this.skin && this.skin.length >= this.mesh.joints * 16) this.drawMesh(vp);
    if (this.stick || !this.mesh) this.drawStick(vp);
  }

  drawMesh(vp) {
    const gl = this.gl;
    const p = this.skinned;
    const m = this.mesh;
    gl.useProgram(p);
    gl.uniformMatrix4fv(gl.getUniformLocation(p, 'u_view_proj'), false, vp);
    gl.uniformMatrix4fv(gl.getUniformLocation(p, 'u_joints'), false, this.skin.subarray(0, m.joints * 16));
    gl.uniform3f(gl.getUniformLocation(p, 'u_color'), 0.78, 0.74, 0.68);
    for (const [name, buf, size] of [['a_pos', m.pos, 3], ['a_nrm', m.nrm, 3], ['a_jnt', m.jnt, 4], ['a_wgt', m.wgt, 4]]) {
      const loc = gl.getAttribLocation(p, name);
      gl.bindBuffer(gl.ARRAY_BUFFER, buf);
      gl.enableVertexAttribArray(loc);
      gl.vertexAttribPointer(loc, size, gl.FLOAT, false, 0, 0);
    }
    gl.bindBuffer(gl.ELEMENT_ARRAY_BUFFER, m.idx);
    gl.drawElements(gl.TRIANGLES, m.count, m.type, 0);
    for (const name of ['a_pos', 'a_nrm', 'a_jnt', 'a_wgt']) gl.disableVertexAttribArray(gl.getAttribLocation(p, name));
  }

  lineDraw(vp, coords, color, mode) {
    const gl = this.gl;
    const p = this.lines;
    gl.useProgram(p);
    gl.uniformMatrix4fv(gl.getUniformLocation(p, 'u_view_proj'), false, vp);
    gl.uniform4fv(gl.getUniformLocation(p, 'u_color'), color);
    const b = gl.createBuffer();
    gl.bindBuffer(gl.ARRAY_BUFFER, b);
    gl.bufferData(gl.ARRAY_BUFFER, new Float32Array(coords), gl.STREAM_DRAW);
    const loc = gl.getAttribLocation(p, 'a_pos');
    gl.enableVertexAttribArray(loc);
    gl.vertexAttribPointer(loc, 3, gl.FLOAT, false, 0, 0);
    gl.drawArrays(mode, 0, coords.length / 3);
    gl.disableVertexAttribArray(loc);
    gl.deleteBuffer(b);
  }

  drawGrid(vp) {
    const g = 0.5;
    const n = 10;
    const cx = Math.round(this.target[0] / g) * g;
    const cz = Math.round(this.target[2] / g) * g;
    const coords = [];
    for (let i = -n; i <= n; i++) {
      coords.push(cx + i * g, 0, cz - n * g, cx + i * g, 0, cz + n * g, cx - n * g, 0, cz + i * g, cx + n * g, 0, cz + i * g);
    }
    this.lineDraw(vp, coords, [0.22, 0.26, 0.31, 1], this.gl.LINES);
  }

  drawStick(vp) {
    const coords = [];
    this.parents.forEach((parent, j) => {
      if (parent === null || parent === undefined || !this.points[j] || !this.points[parent]) return;
      coords.push(...this.points[parent], ...this.points[j]);
    });
    const gl = this.gl;
    gl.disable(gl.DEPTH_TEST);
    if (coords.length) this.lineDraw(vp, coords, [0.55, 0.7, 1, 1], gl.LINES);
    if (this.points.length) this.lineDraw(vp, this.points.flat(), [0.56, 0.7, 1, 1], gl.POINTS);
    gl.enable(gl.DEPTH_TEST);
  }
}

function program(gl, vs, fs) {
  const shader = (type, text) => {
    const s = gl.createShader(type);
    gl.shaderSource(s, text);
    gl.compileShader(s);
    return gl.getShaderParameter(s, gl.COMPILE_STATUS) ? s : null;
  };
  const v = shader(gl.VERTEX_SHADER, vs);
  const f = shader(gl.FRAGMENT_SHADER, fs);
  if (!v || !f) return null;
  const p = gl.createProgram();
  gl.attachShader(p, v);
  gl.attachShader(p, f);
  gl.linkProgram(p);
  return gl.getProgramParameter(p, gl.LINK_STATUS) ? p : null;
}

// Column-major 4×4 matrices.
function perspective(fov, aspect, near, far) {
  const f = 1 / Math.tan(fov / 2);
  const nf = 1 / (near - far);
  return [f / aspect, 0, 0, 0, 0, f, 0, 0, 0, 0, (far + near) * nf, -1, 0, 0, 2 * far * near * nf, 0];
}

function lookAt(eye, target) {
  const z = norm([eye[0] - target[0], eye[1] - target[1], eye[2] - target[2]]);
  const x = norm(cross([0, 1, 0], z));
  const y = cross(z, x);
  return [x[0], y[0], z[0], 0, x[1], y[1], z[1], 0, x[2], y[2], z[2], 0,
    -dot(x, eye), -dot(y, eye), -dot(z, eye), 1];
}

function mul(a, b) {
  const out = new Array(16).fill(0);
  for (let c = 0; c < 4; c++) for (let r = 0; r < 4; r++) for (let k = 0; k < 4; k++) out[c * 4 + r] += a[k * 4 + r] * b[c * 4 + k];
  return out;
}

const dot = (a, b) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const cross = (a, b) => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
const norm = (a) => { const l = Math.hypot(a[0], a[1], a[2]) || 1; return [a[0] / l, a[1] / l, a[2] / l]; };
