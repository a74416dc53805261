// The sudoku-factory play page: plays the puzzles embedded in this page's
// `puzzle-data` element, offline, with no framework and no network.
//
// Model: for the current puzzle, `values` holds every cell (0 = empty; givens are
// fixed), `marks` the pencil candidates of each cell as a bit mask (bit v-1 for
// value v), and a timer. Each change is saved in localStorage under
// PREFIX + puzzle index, so a reload, or coming back to a puzzle, finds it as left.
// The DOM is redrawn from the model after each change (`draw`): at most 625 cells,
// cheap enough that no finer bookkeeping is worth its bugs.
(function () {
  'use strict';

  const data = JSON.parse(document.getElementById('puzzle-data').textContent);
  const N = data.size;
  const BOX = data.box;
  const SYMBOLS = data.symbols;
  const CELLS = N * N;
  const PREFIX = 'sudoku-factory:play:' + data.key + ':';

  const $ = (id) => document.getElementById(id);
  const gridEl = $('grid');
  const statusEl = $('status');
  const timerEl = $('timer');
  const pencilEl = $('pencil');
  const hintEl = $('hint');
  const downloadEl = $('download');

  // localStorage may be missing or refuse (private windows, some browsers on
  // file://); the page then still plays, it only forgets on reload.
  const store = (() => {
    try {
      const probe = PREFIX + 'probe';
      window.localStorage.setItem(probe, '1');
      window.localStorage.removeItem(probe);
      return window.localStorage;
    } catch (e) {
      const memory = new Map();
      return {
        getItem: (k) => (memory.has(k) ? memory.get(k) : null),
        setItem: (k, v) => memory.set(k, String(v)),
      };
    }
  })();

  // ----- The model -------------------------------------------------------------

  const game = {
    index: 0,
    givens: [],
    solution: [],
    values: [],
    marks: [],
    wrong: new Set(), // cells the last Check marked; cleared when they change
    selected: 0,
    pencil: false,
    solved: false,
    revealed: false,
    elapsed: 0, // milliseconds counted before `since`
    since: null, // when the running clock started, or null when stopped
    hint: -1, // the index of the hint shown (in the puzzle's `hints`), or -1
  };

  /** Cells of a board in the text format: `.` = 0, then the symbols 1..N. */
  function parseBoard(text) {
    const out = new Array(CELLS);
    for (let i = 0; i < CELLS; i++) out[i] = SYMBOLS.indexOf(text[i]) + 1;
    return out;
  }

  function boardText(values) {
    return values.map((v) => (v ? SYMBOLS[v - 1] : '.')).join('');
  }

  /** The value a key stands for (letters in either case), or 0 for none. */
  function keyValue(key) {
    if (key.length !== 1) return 0;
    return SYMBOLS.indexOf(key.toUpperCase()) + 1;
  }

  function isGiven(cell) {
    return game.givens[cell] !== 0;
  }

  function clockMs() {
    return game.elapsed + (game.since === null ? 0 : Date.now() - game.since);
  }

  function startClock() {
    if (game.since === null && !game.solved && !game.revealed && !document.hidden) {
      game.since = Date.now();
    }
  }

  function stopClock() {
    if (game.since !== null) {
      game.elapsed += Date.now() - game.since;
      game.since = null;
    }
  }

  function formatTime(ms) {
    const s = Math.floor(ms / 1000);
    const h = Math.floor(s / 3600);
    const m = Math.floor((s % 3600) / 60);
    const ss = String(s % 60).padStart(2, '0');
    return h ? h + ':' + String(m).padStart(2, '0') + ':' + ss : m + ':' + ss;
  }

  // ----- Storage ---------------------------------------------------------------

  function save() {
    const saved = {
      values: boardText(game.values),
      marks: game.marks.some((m) => m) ? game.marks : [],
      elapsed: clockMs(),
      solved: game.solved,
      revealed: game.revealed,
    };
    try {
      store.setItem(PREFIX + game.index, JSON.stringify(saved));
      store.setItem(PREFIX + 'current', String(game.index));
    } catch (e) {
      // Storage full or refused: playing goes on without it.
    }
  }

  /** The saved state of puzzle `index`, or null when there is none that fits it. */
  function restore(index) {
    let saved;
    try {
      saved = JSON.parse(store.getItem(PREFIX + index));
    } catch (e) {
      return null;
    }
    if (!saved || typeof saved.values !== 'string' || saved.values.length !== CELLS) {
      return null;
    }
    const values = parseBoard(saved.values);
    // Progress of another puzzle (the page was regenerated) is not this one's.
    if (game.givens.some((g, i) => g && values[i] !== g)) return null;
    const marks = Array.isArray(saved.marks) && saved.marks.length === CELLS
      ? saved.marks.map((m) => m | 0)
      : new Array(CELLS).fill(0);
    return {
      values,
      marks,
      elapsed: Number(saved.elapsed) || 0,
      solved: saved.solved === true,
      revealed: saved.revealed === true,
    };
  }

  // ----- Actions ---------------------------------------------------------------

  function load(index) {
    const puzzle = data.puzzles[index];
    game.index = index;
    game.givens = parseBoard(puzzle.givens);
    game.solution = parseBoard(puzzle.solution);
    const saved = restore(index);
    game.values = saved ? saved.values : game.givens.slice();
    game.marks = saved ? saved.marks : new Array(CELLS).fill(0);
    game.elapsed = saved ? saved.elapsed : 0;
    game.solved = saved ? saved.solved : false;
    game.revealed = saved ? saved.revealed : false;
    game.since = null;
    game.wrong.clear();
    game.hint = -1;
    game.selected = Math.max(0, game.givens.indexOf(0));
    startClock();
    say(game.solved ? solvedMessage() : game.revealed ? 'Solution revealed.' : '');
    save();
    drawHeader();
    draw();
  }

  function go(delta) {
    const next = game.index + delta;
    if (next < 0 || next >= data.puzzles.length) return;
    stopClock();
    save();
    load(next);
  }

  /** Types value `v` into the selected cell (a pencil mark in pencil mode). */
  function enter(v) {
    const cell = game.selected;
    if (isGiven(cell) || game.solved || game.revealed) return;
    if (game.pencil) {
      if (game.values[cell]) return;
      game.marks[cell] ^= 1 << (v - 1);
    } else {
      game.values[cell] = v;
      game.wrong.delete(cell);
    }
    afterChange();
  }

  /** Empties the selected cell: its value, or else its pencil marks. */
  function erase() {
    const cell = game.selected;
    if (isGiven(cell) || game.solved || game.revealed) return;
    if (game.values[cell]) game.values[cell] = 0;
    else game.marks[cell] = 0;
    game.wrong.delete(cell);
    afterChange();
  }

  function afterChange() {
    game.hint = -1;
    if (game.values.every((v, i) => v === game.solution[i])) {
      game.solved = true;
      stopClock();
      say(solvedMessage());
    } else if (game.values.every((v) => v)) {
      say('Every cell is filled, but something is wrong. Try Check.');
    } else {
      say('');
    }
    save();
    draw();
  }

  /** Marks the wrong entries; empty cells stay empty, so no answer is given away. */
  function check() {
    game.wrong.clear();
    game.values.forEach((v, i) => {
      if (v && !isGiven(i) && v !== game.solution[i]) game.wrong.add(i);
    });
    const n = game.wrong.size;
    say(n === 0 ? 'No mistakes so far.' : n + (n === 1 ? ' entry is' : ' entries are') + ' wrong.');
    draw();
  }

  function reveal() {
    if (game.solved) return;
    game.hint = -1;
    game.values = game.solution.slice();
    game.revealed = true;
    game.wrong.clear();
    stopClock();
    say('Solution revealed.');
    save();
    draw();
  }

  function restart() {
    game.hint = -1;
    game.values = game.givens.slice();
    game.marks = new Array(CELLS).fill(0);
    game.wrong.clear();
    game.solved = false;
    game.revealed = false;
    game.elapsed = 0;
    game.since = null;
    startClock();
    say('');
    save();
    draw();
  }

  // ----- Hints -----------------------------------------------------------------

  // A puzzle's `hints` are the patterns of a solving path in order, each with its
  // cells, houses, digits and conclusions. The next one is the first that sets a
  // cell the player has not filled, or one of the patterns that only remove
  // candidates just before it (pressing Hint again steps through those).

  const NAMES = {
    'x-wing': 'X-wing', 'xy-wing': 'XY-wing', 'xyz-wing': 'XYZ-wing',
    'wxyz-wing': 'WXYZ-wing', 'vwxyz-wing': 'VWXYZ-wing', 'x-chain': 'X-chain',
    'xy-chain': 'XY-chain', aic: 'AIC', bug: 'BUG',
    'dynamic-forcing-chain-plus': 'Dynamic forcing chain (+)',
    'nested-forcing-chain': 'Nested forcing chain',
  };

  function techniqueName(t) {
    return NAMES[t] || t.charAt(0).toUpperCase() + t.slice(1).replace(/-/g, ' ');
  }

  function cellName(c) {
    return 'r' + (Math.floor(c / 9) + 1) + 'c' + ((c % 9) + 1);
  }

  function houseName(u) {
    return ['row ', 'column ', 'box '][Math.floor(u / 9)] + ((u % 9) + 1);
  }

  function nextHint(hints) {
    const open = (h) => h.placements.some(([c]) => game.values[c] === 0);
    const k = hints.findIndex(open);
    if (k < 0) return -1;
    let j = k;
    while (j > 0 && hints[j - 1].placements.length === 0) j--;
    // Again on the same run: the next pattern of it.
    if (game.hint >= j && game.hint < k) return game.hint + 1;
    return j;
  }

  function hintText(h) {
    const said = [];
    for (const [c, d] of h.placements) said.push(cellName(c) + ' is ' + d);
    const gone = new Map();
    for (const [c, d] of h.eliminations) {
      if (!gone.has(d)) gone.set(d, []);
      gone.get(d).push(cellName(c));
    }
    for (const [d, cells] of gone) said.push(d + ' goes from ' + cells.join(', '));
    const where = h.houses.length ? ' in ' + h.houses.map(houseName).join(', ') : '';
    const digits = h.digits.length ? ', digit' + (h.digits.length > 1 ? 's ' : ' ') +
      h.digits.join(', ') : '';
    return 'Hint: ' + techniqueName(h.technique) + ' (' + h.rating + ')' + digits + where +
      ': ' + said.join('; ') + '.';
  }

  function hint() {
    const hints = data.puzzles[game.index].hints;
    if (!hints || game.solved || game.revealed) return;
    const wrong = game.values.some((v, i) => v && v !== game.solution[i]);
    if (wrong) {
      game.hint = -1;
      say('An entry is wrong, so no step follows from this grid: Check shows which.');
    } else {
      game.hint = nextHint(hints);
      say(game.hint < 0 ? 'Every cell is filled.' : hintText(hints[game.hint]));
    }
    draw();
  }

  function togglePencil() {
    game.pencil = !game.pencil;
    draw();
  }

  function select(cell) {
    game.selected = cell;
    draw();
  }

  function move(dr, dc) {
    const r = Math.floor(game.selected / N) + dr;
    const c = (game.selected % N) + dc;
    if (r >= 0 && r < N && c >= 0 && c < N) select(r * N + c);
  }

  function solvedMessage() {
    return 'Solved in ' + formatTime(clockMs()) + '!';
  }

  function say(text) {
    statusEl.textContent = text;
  }

  // ----- Drawing ---------------------------------------------------------------

  const cellEls = [];
  const shown = []; // what each cell shows now, as drawContent keys it

  function build() {
    gridEl.style.setProperty('--n', N);
    gridEl.classList.add('size-' + N);
    for (let i = 0; i < CELLS; i++) {
      const el = document.createElement('div');
      const r = Math.floor(i / N);
      const c = i % N;
      el.className = 'cell';
      if (c % BOX === BOX - 1 && c !== N - 1) el.classList.add('box-right');
      if (r % BOX === BOX - 1 && r !== N - 1) el.classList.add('box-bottom');
      el.setAttribute('role', 'gridcell');
      el.dataset.cell = i;
      el.addEventListener('pointerdown', (e) => {
        e.preventDefault(); // keep the focus on the grid, not on nothing
        gridEl.focus();
        select(i);
      });
      gridEl.appendChild(el);
      cellEls.push(el);
    }
    const pad = $('pad');
    pad.style.setProperty('--cols', padColumns());
    for (let v = 1; v <= N; v++) {
      const b = document.createElement('button');
      b.type = 'button';
      b.textContent = SYMBOLS[v - 1];
      b.dataset.value = v;
      b.addEventListener('click', () => enter(v));
      pad.appendChild(b);
    }
    const eraser = document.createElement('button');
    eraser.type = 'button';
    eraser.id = 'erase';
    eraser.textContent = '\u232B';
    eraser.setAttribute('aria-label', 'Erase');
    eraser.addEventListener('click', erase);
    pad.appendChild(eraser);
  }

  /** Pad columns: the N symbols and the eraser in rows of about equal length. */
  function padColumns() {
    const buttons = N + 1;
    const rows = Math.ceil(buttons / (N <= 9 ? 5 : 7));
    return Math.ceil(buttons / rows);
  }

  function drawHeader() {
    const p = data.puzzles[game.index];
    $('puzzle-name').textContent = 'Puzzle ' + p.number;
    const meta = [p.band];
    if (p.rating) meta.push(p.rating);
    if (p.technique) meta.push(p.technique);
    $('puzzle-meta').textContent = meta.join(' \u00B7 ');
    $('position').textContent = (game.index + 1) + ' / ' + data.puzzles.length;
    $('prev').disabled = game.index === 0;
    $('next').disabled = game.index === data.puzzles.length - 1;
    hintEl.hidden = !p.hints;
    downloadEl.setAttribute('download', 'sudoku-' + p.number + '.png');
  }

  function draw() {
    const sel = game.selected;
    const selRow = Math.floor(sel / N);
    const selCol = sel % N;
    const selBox = boxOf(sel);
    const selValue = game.values[sel];
    const hints = data.puzzles[game.index].hints;
    const h = game.hint >= 0 && hints ? hints[game.hint] : null;
    const inHouse = (i) => h !== null && h.houses.some((u) =>
      (u < 9 ? Math.floor(i / 9) === u : u < 18 ? i % 9 === u - 9 : boxOf(i) === u - 18));
    for (let i = 0; i < CELLS; i++) {
      const el = cellEls[i];
      const v = game.values[i];
      const given = isGiven(i);
      const r = Math.floor(i / N);
      const c = i % N;
      el.classList.toggle('given', given);
      el.classList.toggle('entry', !given && v !== 0);
      el.classList.toggle('wrong', game.wrong.has(i));
      el.classList.toggle('selected', i === sel);
      el.setAttribute('aria-selected', String(i === sel));
      el.classList.toggle('peer', i !== sel && (r === selRow || c === selCol || boxOf(i) === selBox));
      el.classList.toggle('same', i !== sel && v !== 0 && v === selValue);
      el.dataset.value = v ? SYMBOLS[v - 1] : '';
      el.dataset.marks = v ? '' : marksText(game.marks[i]);
      el.classList.toggle('hint-house', inHouse(i));
      el.classList.toggle('hint-cell', h !== null && h.cells.includes(i));
      const place = h ? h.placements.filter(([c]) => c === i).map(([, d]) => d) : [];
      const elim = h ? h.eliminations.filter(([c]) => c === i).map(([, d]) => d) : [];
      el.classList.toggle('hint-place', place.length > 0);
      el.classList.toggle('hint-elim', elim.length > 0);
      el.dataset.hintPlace = place.join('');
      el.dataset.hintElim = elim.length ? '\u2212' + elim.join('') : '';
      drawContent(i, v, v ? 0 : game.marks[i]);
    }
    gridEl.classList.toggle('solved', game.solved);
    gridEl.classList.toggle('revealed', game.revealed);
    gridEl.classList.toggle('pencil-mode', game.pencil);
    pencilEl.setAttribute('aria-pressed', String(game.pencil));
    pencilEl.classList.toggle('on', game.pencil);
    timerEl.textContent = formatTime(clockMs());
  }

  function boxOf(cell) {
    const r = Math.floor(cell / N);
    const c = cell % N;
    return Math.floor(r / BOX) * BOX + Math.floor(c / BOX);
  }

  /**
   * What a cell shows: its value, or else its pencil marks as a BOX×BOX grid with
   * each value in its own place. Rebuilt only when it changes (`shown`).
   */
  function drawContent(i, v, mask) {
    const key = v ? 'v' + v : 'm' + mask;
    if (shown[i] === key) return;
    shown[i] = key;
    const el = cellEls[i];
    el.textContent = v ? SYMBOLS[v - 1] : '';
    if (!mask) return;
    const box = document.createElement('div');
    box.className = 'marks';
    for (let m = 1; m <= N; m++) {
      const span = document.createElement('span');
      if (mask & (1 << (m - 1))) span.textContent = SYMBOLS[m - 1];
      box.appendChild(span);
    }
    el.appendChild(box);
  }

  function marksText(mask) {
    let s = '';
    for (let v = 1; v <= N; v++) if (mask & (1 << (v - 1))) s += SYMBOLS[v - 1];
    return s;
  }

  // ----- The picture for "Download PNG" ----------------------------------------

  /** Draws the current grid (givens, entries, pencil marks) on a new canvas. */
  function picture() {
    const cell = N <= 9 ? 64 : N <= 16 ? 44 : 36;
    const margin = 24;
    const head = 40;
    const side = cell * N;
    const canvas = document.createElement('canvas');
    canvas.width = side + 2 * margin;
    canvas.height = side + 2 * margin + head;
    const g = canvas.getContext('2d');
    g.fillStyle = '#ffffff';
    g.fillRect(0, 0, canvas.width, canvas.height);
    const p = data.puzzles[game.index];
    g.fillStyle = '#1b1f24';
    g.font = '600 18px sans-serif';
    g.textBaseline = 'middle';
    g.textAlign = 'left';
    g.fillText('Puzzle ' + p.number + ' \u00B7 ' + p.band, margin, margin + head / 2 - 8);
    const x0 = margin;
    const y0 = margin + head;
    g.textAlign = 'center';
    for (let i = 0; i < CELLS; i++) {
      const x = x0 + (i % N) * cell;
      const y = y0 + Math.floor(i / N) * cell;
      const v = game.values[i];
      if (v) {
        g.fillStyle = isGiven(i) ? '#1b1f24' : '#1d5fbf';
        g.font = (isGiven(i) ? '600 ' : '400 ') + Math.round(cell * 0.6) + 'px sans-serif';
        g.fillText(SYMBOLS[v - 1], x + cell / 2, y + cell / 2 + 1);
      } else if (game.marks[i]) {
        const sub = cell / BOX;
        g.fillStyle = '#5f6b7a';
        g.font = Math.round(sub * 0.75) + 'px sans-serif';
        for (let m = 1; m <= N; m++) {
          if (!(game.marks[i] & (1 << (m - 1)))) continue;
          const mx = x + ((m - 1) % BOX) * sub + sub / 2;
          const my = y + Math.floor((m - 1) / BOX) * sub + sub / 2 + 1;
          g.fillText(SYMBOLS[m - 1], mx, my);
        }
      }
    }
    // Thin lines first, so the box lines cross over them; square caps close the
    // corners of the frame.
    g.lineCap = 'square';
    for (const thick of [false, true]) {
      g.strokeStyle = thick ? '#1b1f24' : '#b8c0cc';
      g.lineWidth = thick ? 3 : 1;
      g.beginPath();
      for (let k = 0; k <= N; k++) {
        if ((k % BOX === 0) !== thick) continue;
        g.moveTo(x0 + k * cell, y0);
        g.lineTo(x0 + k * cell, y0 + side);
        g.moveTo(x0, y0 + k * cell);
        g.lineTo(x0 + side, y0 + k * cell);
      }
      g.stroke();
    }
    return canvas;
  }

  // ----- Wiring ----------------------------------------------------------------

  document.addEventListener('keydown', (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    if (moves[e.key]) {
      e.preventDefault();
      move(moves[e.key][0], moves[e.key][1]);
    } else if (e.key === 'Backspace' || e.key === 'Delete' || e.key === '0' || e.key === '.') {
      e.preventDefault();
      erase();
    } else if (keyValue(e.key)) {
      e.preventDefault();
      enter(keyValue(e.key));
    }
    // Any other key is not ours: ignored, and left to the browser (Tab, F5, ...).
  });

  $('prev').addEventListener('click', () => go(-1));
  $('next').addEventListener('click', () => go(1));
  $('check').addEventListener('click', check);
  hintEl.addEventListener('click', hint);
  $('reveal').addEventListener('click', reveal);
  $('restart').addEventListener('click', restart);
  pencilEl.addEventListener('click', togglePencil);
  downloadEl.addEventListener('click', () => {
    // Set before the browser follows the link, so the download is this picture.
    downloadEl.href = picture().toDataURL('image/png');
  });

  document.addEventListener('visibilitychange', () => {
    if (document.hidden) {
      stopClock();
      save();
    } else {
      startClock();
    }
  });
  window.addEventListener('pagehide', () => save());
  let ticks = 0;
  window.setInterval(() => {
    timerEl.textContent = formatTime(clockMs());
    if (++ticks % 10 === 0 && game.since !== null) save();
  }, 1000);

  build();
  const current = parseInt(store.getItem(PREFIX + 'current'), 10);
  load(current >= 0 && current < data.puzzles.length ? current : 0);
  gridEl.focus();
})();
