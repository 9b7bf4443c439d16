/* Tilefold tiles: every mahjong tile drawn as an inline SVG the project makes itself (no font
   icons, no images, no network). Shared by the play pages and the replay viewer:
     <script src="/static/tiles.js"></script>   then   window.TilefoldTiles
   API (tile codes are the G-1 notation: 1m..9m 万, 1p..9p 筒, 1s..9s 条, E S W N C F P):
     TilefoldTiles.svg(code, opts)      -> SVG markup (string); code null/"" draws a tile back
     TilefoldTiles.element(code, opts)  -> <span class="tf-tile"> holding that SVG (a DOM node)
     TilefoldTiles.zh(code)             -> Chinese name, e.g. "九万", "东风", "红中"
     TilefoldTiles.en(code)             -> English name, e.g. "9 of characters", "East wind"
     TilefoldTiles.label(code)          -> "9m 九万 (9 of characters)" (for aria-label / title)
     TilefoldTiles.parse("123m44pE")    -> ["1m","2m","3m","4p","4p","E"]
     TilefoldTiles.sort(codes)          -> codes in table order (万 筒 条 winds dragons)
   opts: {mark: "耗"} a corner badge (the wild), {dim: true}, {sideways: true} (a claimed tile).
   Size comes from CSS: .tf-tile { width: ... } (the SVG keeps a 3:4 tile shape). */
(function (root) {
  "use strict";
  const NUM = "一二三四五六七八九";
  const SUIT_ZH = { m: "万", p: "筒", s: "条" };
  const SUIT_EN = { m: "characters", p: "dots", s: "bamboo" };
  const HONOURS = {
    E: ["东风", "East wind", "东", "#1b1b1b"], S: ["南风", "South wind", "南", "#1b1b1b"],
    W: ["西风", "West wind", "西", "#1b1b1b"], N: ["北风", "North wind", "北", "#1b1b1b"],
    C: ["红中", "Red dragon", "中", "#c62828"], F: ["发财", "Green dragon", "发", "#1b7a3a"],
    P: ["白板", "White dragon", "", "#2e5fa8"],
  };
  const ORDER = "mpsESWNCFP";
  const RED = "#c62828", GREEN = "#1b7a3a", BLUE = "#1f4e9c";
  const FONT = "'WenQuanYi Micro Hei','Noto Sans CJK SC','PingFang SC','Microsoft YaHei','Hiragino Sans GB',sans-serif";

  function valid(code) {
    return typeof code === "string" && (/^[1-9][mps]$/.test(code) || Object.prototype.hasOwnProperty.call(HONOURS, code));
  }
  function zh(code) {
    if (!valid(code)) return "暗牌";
    if (HONOURS[code]) return HONOURS[code][0];
    return NUM[Number(code[0]) - 1] + SUIT_ZH[code[1]];
  }
  function en(code) {
    if (!valid(code)) return "hidden tile";
    if (HONOURS[code]) return HONOURS[code][1];
    return code[0] + " of " + SUIT_EN[code[1]];
  }
  function label(code) { return valid(code) ? code + " " + zh(code) + " (" + en(code) + ")" : "暗牌 (hidden tile)"; }

  function parse(text) {
    const out = [];
    let digits = [];
    for (const ch of String(text || "")) {
      if (/[1-9]/.test(ch)) digits.push(ch);
      else if ("mps".includes(ch)) { digits.forEach((d) => out.push(d + ch)); digits = []; }
      else if (HONOURS[ch]) out.push(ch);
    }
    return out;
  }
  function rank(code) {
    const suit = /^[1-9][mps]$/.test(code) ? code[1] : code;
    return ORDER.indexOf(suit) * 10 + (/^[1-9]/.test(code) ? Number(code[0]) : 0);
  }
  function sort(codes) { return codes.slice().sort((a, b) => rank(a) - rank(b)); }

  // ---------------------------------------------------------------- faces (viewBox 60 x 80)
  const PIPS = {  // 筒: centres and colours, per rank
    1: [[30, 40, RED]],
    2: [[30, 22, GREEN], [30, 58, BLUE]],
    3: [[15, 18, BLUE], [30, 40, RED], [45, 62, GREEN]],
    4: [[18, 22, BLUE], [42, 22, GREEN], [18, 58, GREEN], [42, 58, BLUE]],
    5: [[17, 19, BLUE], [43, 19, GREEN], [30, 40, RED], [17, 61, GREEN], [43, 61, BLUE]],
    6: [[19, 15, GREEN], [41, 15, GREEN], [19, 40, RED], [41, 40, RED], [19, 65, RED], [41, 65, RED]],
    7: [[14, 12, GREEN], [30, 20, GREEN], [46, 28, GREEN], [19, 47, RED], [41, 47, RED], [19, 67, RED], [41, 67, RED]],
    8: [[19, 12, BLUE], [41, 12, BLUE], [19, 31, BLUE], [41, 31, BLUE], [19, 50, BLUE], [41, 50, BLUE],
        [19, 69, BLUE], [41, 69, BLUE]],
    9: [[15, 15, BLUE], [30, 15, BLUE], [45, 15, BLUE], [15, 40, RED], [30, 40, RED], [45, 40, RED],
        [15, 65, GREEN], [30, 65, GREEN], [45, 65, GREEN]],
  };
  const PIP_R = { 1: 19, 2: 13, 3: 10, 4: 10, 5: 9, 6: 8, 7: 7.2, 8: 7.2, 9: 7.2 };
  const STICKS = {  // 条: centres, colours (x, y, colour), per rank; stick height per rank below
    2: [[30, 23, GREEN], [30, 57, BLUE]],
    3: [[30, 23, GREEN], [19, 57, BLUE], [41, 57, BLUE]],
    4: [[19, 23, GREEN], [41, 23, BLUE], [19, 57, BLUE], [41, 57, GREEN]],
    5: [[16, 22, GREEN], [44, 22, BLUE], [30, 40, RED], [16, 58, BLUE], [44, 58, GREEN]],
    6: [[15, 23, GREEN], [30, 23, GREEN], [45, 23, GREEN], [15, 57, BLUE], [30, 57, BLUE], [45, 57, BLUE]],
    7: [[30, 14, RED], [15, 42, GREEN], [30, 42, GREEN], [45, 42, GREEN], [15, 66, GREEN], [30, 66, GREEN],
        [45, 66, GREEN]],
    8: [[12, 23, GREEN], [24, 23, GREEN], [36, 23, GREEN], [48, 23, GREEN], [12, 57, BLUE], [24, 57, BLUE],
        [36, 57, BLUE], [48, 57, BLUE]],
    9: [[15, 15, GREEN], [30, 15, RED], [45, 15, GREEN], [15, 40, GREEN], [30, 40, RED], [45, 40, GREEN],
        [15, 65, GREEN], [30, 65, RED], [45, 65, GREEN]],
  };
  const STICK_H = { 2: 24, 3: 24, 4: 24, 5: 20, 6: 24, 7: 18, 8: 24, 9: 19 };

  function pip(x, y, r, colour) {
    return `<circle cx="${x}" cy="${y}" r="${r}" fill="#fff" stroke="${colour}" stroke-width="${r > 12 ? 3 : 2.2}"/>` +
      `<circle cx="${x}" cy="${y}" r="${(r * 0.55).toFixed(1)}" fill="${colour}"/>` +
      (r > 12 ? `<circle cx="${x}" cy="${y}" r="${(r * 0.22).toFixed(1)}" fill="#fff"/>` : "");
  }
  function stick(x, y, h, colour) {
    const top = y - h / 2;
    return `<rect x="${x - 3.8}" y="${top}" width="7.6" height="${h}" rx="3" fill="${colour}"/>` +
      `<line x1="${x - 3.8}" x2="${x + 3.8}" y1="${y}" y2="${y}" stroke="#fff" stroke-width="1.3"/>` +
      `<line x1="${x}" x2="${x}" y1="${top + 2}" y2="${top + h - 2}" stroke="#ffffff88" stroke-width="1"/>`;
  }
  function oneBamboo() {  // 一条: a bamboo bird, simply: a tall stick with a red crest
    return `<path d="M30 10 c-9 6-13 16-9 26 c3 8 3 18-3 26 l24 0 c-6-8-6-18-3-26 c4-10 0-20-9-26z" fill="${GREEN}"/>` +
      `<circle cx="30" cy="20" r="4.5" fill="${RED}"/><circle cx="30" cy="20" r="1.6" fill="#fff"/>` +
      `<path d="M22 62 l16 0 l-8 10z" fill="${RED}"/>`;
  }
  function text(x, y, size, colour, chars, weight) {
    return `<text x="${x}" y="${y}" font-size="${size}" fill="${colour}" text-anchor="middle" ` +
      `dominant-baseline="central" font-family="${FONT}" font-weight="${weight || 700}">${chars}</text>`;
  }
  function face(code) {
    if (HONOURS[code]) {
      const [, , glyph, colour] = HONOURS[code];
      if (code === "P") return `<rect x="12" y="14" width="36" height="52" rx="3" fill="none" stroke="${colour}" stroke-width="3.2"/>` +
        `<rect x="17" y="19" width="26" height="42" rx="2" fill="none" stroke="${colour}" stroke-width="1.4"/>`;
      return text(30, 41, 38, colour, glyph);
    }
    const n = Number(code[0]), suit = code[1];
    if (suit === "m") return text(30, 22, 25, BLUE, NUM[n - 1]) + text(30, 56, 28, RED, "万");
    if (suit === "p") return PIPS[n].map(([x, y, c]) => pip(x, y, PIP_R[n], c)).join("");
    if (n === 1) return oneBamboo();
    return STICKS[n].map(([x, y, c]) => stick(x, y, STICK_H[n], c)).join("");
  }
  function badge(mark) {
    return `<circle cx="50" cy="10" r="9" fill="#f2b01e" stroke="#8a5a00" stroke-width="1"/>` +
      text(50, 10.5, 11, "#3b2600", escape(mark), 700);
  }
  function escape(s) {
    return String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
  }

  function svg(code, opts) {
    opts = opts || {};
    const known = valid(code);
    const body = known
      ? `<rect x="1.5" y="1.5" width="57" height="77" rx="7" fill="#fffdf6" stroke="#b9ad8f" stroke-width="2"/>` + face(code)
      : `<rect x="1.5" y="1.5" width="57" height="77" rx="7" fill="#2f7d5b" stroke="#1f5a40" stroke-width="2"/>` +
        `<rect x="7" y="7" width="46" height="66" rx="5" fill="none" stroke="#8fd0ad" stroke-width="1.5"/>`;
    const dim = opts.dim ? `<rect x="1.5" y="1.5" width="57" height="77" rx="7" fill="#00000033"/>` : "";
    const marked = known && opts.mark ? badge(opts.mark) : "";
    const rotate = opts.sideways ? ` transform="rotate(-90 30 40)"` : "";
    const box = opts.sideways ? `viewBox="-10 10 80 60"` : `viewBox="0 0 60 80"`;
    return `<svg xmlns="http://www.w3.org/2000/svg" ${box} role="img" aria-label="${escape(label(known ? code : null))}" ` +
      `focusable="false"><g${rotate}>${body}${marked}${dim}</g></svg>`;
  }

  function element(code, opts) {
    opts = opts || {};
    const span = document.createElement("span");
    span.className = "tf-tile" + (valid(code) ? "" : " tf-back") + (opts.sideways ? " tf-sideways" : "") +
      (opts.mark ? " tf-marked" : "");
    if (valid(code)) span.dataset.tile = code;
    span.innerHTML = svg(code, opts);  // built only from fixed strings and a validated code
    span.title = label(valid(code) ? code : null);
    return span;
  }

  root.TilefoldTiles = { svg, element, zh, en, label, parse, sort, valid };
})(typeof window !== "undefined" ? window : this);
