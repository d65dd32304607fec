// xterm.js under desk's Content Security Policy.
//
// The page allows no inline style (style-src 'self'): a <style> element or
// a style attribute written as text is refused, with a console error each
// time. xterm.js's DOM renderer uses both: <style> elements for the theme's
// colours and the cell size, and style attributes set by name for the
// cells of 24-bit colour. What the policy does allow is styling from script:
// constructed style sheets (document.adoptedStyleSheets) and the CSSOM
// (element.style). So, once, before the first terminal opens:
//
// - document.createElement('style') returns a <desk-style> element, which
//   keeps its text in a constructed sheet adopted by the document while it
//   is connected;
// - setting the attribute named style sets element.style.cssText instead,
//   which gives the element the same attribute without parsing it as markup.
//
// Nothing else on the page makes <style> elements or writes style
// attributes (the policy would refuse them), so nothing else changes.

let installed = false;

class DeskStyle extends HTMLElement {
  constructor() {
    super();
    this.sheet = new CSSStyleSheet();
    this.observer = new MutationObserver(() => this.sync());
    this.observer.observe(this, { childList: true, characterData: true, subtree: true });
  }

  sync() {
    this.sheet.replaceSync(this.textContent || '');
  }

  connectedCallback() {
    this.sync();
    if (!document.adoptedStyleSheets.includes(this.sheet)) document.adoptedStyleSheets = [...document.adoptedStyleSheets, this.sheet];
  }

  disconnectedCallback() {
    document.adoptedStyleSheets = document.adoptedStyleSheets.filter((s) => s !== this.sheet);
  }
}

/** Installs the adapter (once per page). */
export function allowScriptStyles() {
  if (installed) return;
  installed = true;
  customElements.define('desk-style', DeskStyle);
  const createElement = Document.prototype.createElement;
  Document.prototype.createElement = function (name, options) {
    if (typeof name === 'string' && name.toLowerCase() === 'style') return createElement.call(this, 'desk-style');
    return createElement.call(this, name, options);
  };
  const setAttribute = Element.prototype.setAttribute;
  Element.prototype.setAttribute = function (name, value) {
    if (typeof name === 'string' && name.toLowerCase() === 'style' && this.style) {
      this.style.cssText = String(value);
      return;
    }
    setAttribute.call(this, name, value);
  };
}
