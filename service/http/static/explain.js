/* Tilefold explained settlement: the winner's hand as scoring read it and the payment step by step,
   drawn from engine.explain (the replay's hands[i].explain and the table's last_result.explain: one
   source). Shared by the table (/play) and the replay viewer; no rule lives here, only words.

     TilefoldExplain.hand(ex, ctx)              -> <div id="explained"> (sets apart, wilds with what they stood for, melds)
     TilefoldExplain.payment(p, score, ctx)     -> <div id="payment"> (the payment's `layout`: points / patterns / shares)

   ctx: { tile(code, {wild}) -> element, seatName(s) -> text, names (pattern code -> [zh, en]),
          extra (pinghu / yadang -> [zh, en]), wildName -> "耗子" / "配子" }
   Every name from the data is written with textContent, never as HTML. */
(function (root) {
  "use strict";
  const T = root.TilefoldTiles;
  const KONG = { exposed: ["明杠", "exposed kong"], added: ["加杠", "added kong"], concealed: ["暗杠", "concealed kong"] };
  const el = (tag, cls, text) => {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  };
  const tileZh = (code) => (code ? T.zh(code) : "?");
  const tileLabel = (code) => (code ? tileZh(code) + " (" + code + ")" : "?");

  function hand(ex, ctx) {
    // The winner's hand as scoring read it: each set apart, wilds/白板 shown with what they stood for.
    const wrap = el("div", "explained"); wrap.id = "explained";
    wrap.appendChild(el("div", "label", ex.seven_pairs ? "七对 read as seven pairs" : "牌型 read as sets + pair"));
    const row = el("div", "blocks");
    ex.blocks.forEach((b) => {
      const blk = el("span", "block " + b.shape); blk.dataset.shape = b.shape;
      b.tiles.forEach((t) => {
        const cell = el("span", "cell");
        const node = ctx.tile(t.tile, { wild: !!t.wild });
        if (t.win) { node.classList.add("win-tile"); node.title = (node.title || tileLabel(t.tile)) + " · 和牌 the winning tile"; cell.classList.add("win"); }
        cell.appendChild(node);
        if (t.as) {
          const as = el("span", "as", (t.stand_in ? "白板→" : "") + "当" + tileZh(t.as));
          as.title = (t.stand_in ? "白板 stands in for the 配子's kind (H-2): " : ctx.wildName + " (wild) stands for ") + tileLabel(t.as);
          cell.appendChild(as); cell.dataset.as = t.as;
        }
        if (t.win) cell.appendChild(el("span", "winmark", "和"));
        blk.appendChild(cell);
      });
      row.appendChild(blk);
    });
    ex.melds.forEach((m) => {
      const blk = el("span", "block meld " + m.type); blk.dataset.meld = m.tile;
      const n = m.type === "kong" ? 4 : 3;
      for (let i = 0; i < n; i++) blk.appendChild(ctx.tile(m.tile, {}));
      const kind = m.type === "kong" ? (KONG[m.kong] || [m.kong, "kong"]) : ["碰", "pung"];
      blk.title = kind[0] + " " + kind[1] + " " + tileLabel(m.tile);
      blk.setAttribute("aria-label", blk.title);
      row.appendChild(blk);
    });
    wrap.appendChild(row);
    return wrap;
  }

  // The payment's "layout" (engine.explain, from the variant's registry entry) picks its rendering;
  // a layout this page does not know gets the generic one: who pays how much.
  function payment(p, score, ctx) {
    const box = el("div", "payment"); box.id = "payment";
    const line = (text, cls) => { const d = el("div", cls || "pline", text); box.appendChild(d); return d; };
    const layouts = { points: pointsPayment, patterns: patternsPayment };
    (layouts[p.layout] || sharesPayment)(p, score, ctx, box, line);
    return box;
  }
  function sharesPayment(p, score, ctx, box, line) {
    (p.lines || []).forEach((text) => line(text));
    if (p.value !== null && p.value !== undefined) line("和牌价值 value " + p.value + (p.base !== 1 ? " · 底分 base ×" + p.base : ""), "pline total");
    p.shares.forEach((sh) => {
      let t = ctx.seatName(sh.paid_by) + " 付 pays " + sh.amount;
      if (sh.paid_by !== sh.seat) t += " (" + ctx.seatName(sh.seat) + " 的一份 share)";
      line(t, "share").dataset.payer = sh.paid_by;
    });
  }
  function pointsPayment(p, score, ctx, box, line) {
    const names = ctx.names || {};
    const tileText = p.points_tile ? tileZh(p.points_tile) + " (" + p.points_tile + ")" : "?";
    line((p.wild_drawn ? "自摸" + ctx.wildName + "，按所听最大的牌 " : "和牌 ") + tileText + " 的点数 = " + p.points +
         " · points of the " + (p.wild_drawn ? "best wait (a drawn 耗子, K-13)" : "winning tile") + " (K-1: 1–9 by rank, honours 10)");
    let why = p.self_drawn ? "自摸 ×2 self-draw" : "点炮 ×1 on a discard";
    const special = (score.patterns || []).filter((c) => typeof c === "string");
    if (p.wilds_mode && special.length) why += " · 耗子模式不计" + special.map((c) => (names[c] || [c])[0]).join("、") + "倍数 (K-13: wild mode drops the special-hand multiplier)";
    else if (p.multiplier > (p.self_drawn ? 2 : 1)) why = special.map((c) => (names[c] || [c])[0]).join("、") + " ×" + p.multiplier + " (K-7, the highest only)";
    line("倍数 multiplier " + p.multiplier + " — " + why);
    line(p.points + " × " + p.multiplier + " = " + p.value + (p.base !== 1 ? " · 底分 base ×" + p.base : ""), "pline total");
    p.shares.forEach((sh) => {
      const payer = sh.paid_by;
      let t = ctx.seatName(payer) + " 付 pays " + sh.amount;
      if (payer !== sh.seat) t += " (" + ctx.seatName(sh.seat) + " 的一份 share)";
      if (sh.dealer_bonus) t += " 含庄家 +" + sh.dealer_bonus + " (K-12)";
      line(t, "share").dataset.payer = payer;
    });
    if (p.pays_all) line("点炮包胡：放炮者 " + ctx.seatName(p.discarder) + " 未报听，替三家付 — an unready discarder pays for all three (K-8)", "pline why");
    else if (p.discarder !== null && p.discarder !== undefined) line("放炮者已报听，只付自己一份 — a ready discarder pays only its own share (K-8)", "pline why");
  }
  function patternsPayment(p, score, ctx, box, line) {
    const ex = (ctx.extra || {})[p.yadang ? "yadang" : "pinghu"] || [p.yadang ? "丫当" : "平胡", ""];
    line("番数 pattern score " + p.pattern_score + " · " + ex[0] + " " + ex[1]);
    const t = el("table", "extra"); t.id = "extra-table";
    const hr = el("tr"); ["H-10 " + (p.winner_dealer ? "庄家" : "闲家") + (p.self_drawn ? "自摸" : "点炮"), "闲家付 non-dealer", "庄家付 dealer"].forEach((x) => hr.appendChild(el("th", null, x)));
    t.appendChild(hr);
    [["平胡 pinghu", p.table.pinghu, !p.yadang], ["丫当 yadang", p.table.yadang, p.yadang]].forEach(([label, vals, used]) => {
      const r = el("tr", used ? "used" : ""); r.appendChild(el("td", null, label));
      vals.forEach((v) => r.appendChild(el("td", "num", "+" + v))); t.appendChild(r);
    });
    box.appendChild(t);
    p.shares.forEach((sh) => {
      let txt = ctx.seatName(sh.seat) + (sh.dealer ? " (庄 dealer)" : "") + ": (" + p.pattern_score + " + " + sh.extra + ")" +
        (p.base !== 1 ? " × " + p.base : "") + " = " + sh.amount;
      if (sh.paid_by !== sh.seat) txt += " → " + ctx.seatName(sh.paid_by) + " 付 pays";
      line(txt, "share").dataset.payer = sh.paid_by;
    });
    if (p.pays_all) line("点炮一家付：放炮者付全部 — the discarder pays everything (H-5)", "pline why");
  }

  root.TilefoldExplain = { hand, payment };
})(window);
