// The office's two sounds, made with the Web Audio API (no sound files):
// a rising chime when an agent finishes its turn, a falling pair when one
// asks for permission. Off until the owner turns them on; the choice is
// kept by this browser. A browser lets a page sound only after the owner
// used it, so the audio starts at the first press in the office.

import { prefs } from '../prefs.js';

const DONE = { notes: [659.25, 1318.51], gap: 0.1, length: 0.18, volume: 0.14 };
const PERMISSION = { notes: [880, 659.25], gap: 0.12, length: 0.15, volume: 0.12 };

export class OfficeSounds {
  constructor() {
    /** @type {AudioContext|null} */
    this.audio = null;
  }

  get on() {
    return prefs.officeSound();
  }

  /** Turns the sounds on (playing the chime, so the owner hears it) or off. */
  set(on) {
    prefs.setOfficeSound(on);
    if (on) {
      this.unlock();
      this.done();
    }
  }

  /** Starts the audio; called in the owner's gestures. */
  unlock() {
    if (!this.on) return;
    try {
      this.audio ||= new AudioContext();
      if (this.audio.state === 'suspended') this.audio.resume();
    } catch {
      this.audio = null;
    }
  }

  done() {
    this.play(DONE);
  }

  permission() {
    this.play(PERMISSION);
  }

  play({ notes, gap, length, volume }) {
    const a = this.audio;
    if (!this.on || !a || a.state !== 'running') return;
    const t0 = a.currentTime + 0.01;
    notes.forEach((f, i) => {
      const start = t0 + i * gap;
      const osc = a.createOscillator();
      const gain = a.createGain();
      osc.type = 'sine';
      osc.frequency.value = f;
      gain.gain.setValueAtTime(volume, start);
      gain.gain.exponentialRampToValueAtTime(0.0001, start + length);
      osc.connect(gain);
      gain.connect(a.destination);
      osc.start(start);
      osc.stop(start + length + 0.02);
    });
  }
}
