// Where the office is on its canvas: an integer zoom (device pixels per
// world pixel, 1 to 10, so every sprite pixel is a whole square) and where
// the world's origin falls, in device pixels. Zooming keeps the point
// under the pointer (or the finger, or the centre) where it is; panning
// keeps some of the office on screen.

export const MIN_ZOOM = 1;
export const MAX_ZOOM = 10;

export class Camera {
  constructor() {
    this.z = 3;
    this.x = 0;
    this.y = 0;
    this.width = 1;
    this.height = 1;
    this.world = { x: 0, y: 0, w: 16, h: 16 };
    /** Set once the owner zoomed or panned: fit() then leaves the view alone. */
    this.moved = false;
  }

  /** The canvas size in device pixels, and the world rectangle in world pixels. */
  setView(width, height, world) {
    this.width = width;
    this.height = height;
    this.world = world;
    if (!this.moved) this.fit();
    else this.clamp();
  }

  /** The largest zoom at which the whole office fits, centred. */
  fit() {
    const { w, h } = this.world;
    const z = Math.floor(Math.min((this.width - 8) / w, (this.height - 8) / h));
    this.z = Math.max(MIN_ZOOM, Math.min(MAX_ZOOM, z || MIN_ZOOM));
    this.center();
  }

  center() {
    const { x, y, w, h } = this.world;
    this.x = Math.round((this.width - w * this.z) / 2 - x * this.z);
    this.y = Math.round((this.height - h * this.z) / 2 - y * this.z);
  }

  /** Zooms to z, keeping the device point (px, py) over the same world point. */
  zoomTo(z, px = this.width / 2, py = this.height / 2) {
    z = Math.max(MIN_ZOOM, Math.min(MAX_ZOOM, Math.round(z)));
    if (z === this.z) return false;
    const wx = (px - this.x) / this.z;
    const wy = (py - this.y) / this.z;
    this.z = z;
    this.x = Math.round(px - wx * z);
    this.y = Math.round(py - wy * z);
    this.moved = true;
    this.clamp();
    return true;
  }

  panBy(dx, dy) {
    this.x = Math.round(this.x + dx);
    this.y = Math.round(this.y + dy);
    this.moved = true;
    this.clamp();
  }

  /** Back to the whole office, fitted. */
  reset() {
    this.moved = false;
    this.fit();
  }

  // At least a quarter of the view (or of the office) stays office.
  clamp() {
    const { x, y, w, h } = this.world;
    const ww = w * this.z;
    const wh = h * this.z;
    const keepX = Math.min(ww, this.width) / 4;
    const keepY = Math.min(wh, this.height) / 4;
    const left = this.x + x * this.z;
    const top = this.y + y * this.z;
    if (left > this.width - keepX) this.x -= left - (this.width - keepX);
    if (left + ww < keepX) this.x += keepX - (left + ww);
    if (top > this.height - keepY) this.y -= top - (this.height - keepY);
    if (top + wh < keepY) this.y += keepY - (top + wh);
    this.x = Math.round(this.x);
    this.y = Math.round(this.y);
  }

  /** The world point under a device point. */
  toWorld(px, py) {
    return { x: (px - this.x) / this.z, y: (py - this.y) / this.z };
  }

  /** The device point of a world point. */
  toScreen(wx, wy) {
    return { x: this.x + wx * this.z, y: this.y + wy * this.z };
  }
}
