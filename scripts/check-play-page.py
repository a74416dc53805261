#!/usr/bin/env python3
"""Plays an offline HTML play page (issue #13) in headless Chromium and checks it.

    check-play-page.py PAGE.html SCREENSHOT.png [MORE.html ...]

PAGE.html must hold at least two puzzles; on it the script types a wrong and a right
entry, checks that Check marks only the wrong one and reveals nothing, that other
keys are ignored, arrow keys move, pencil marks toggle, progress survives a reload
(localStorage), Restart and Reveal work, that typing the whole solution marks the
grid solved, Next/Prev show each puzzle's number and band, and that Download PNG
makes a PNG; then it saves a screenshot to SCREENSHOT.png. Hint (9x9 pages) must
show the solving path's next pattern: its cells marked, its conclusions true of the
solution, the first one on a fresh grid, the one after the player's progress
later, none while an entry is wrong. Each MORE.html (e.g. a 16x16 page) gets a
smoke test: a letter typed in lower case, then the whole solution typed until the
grid is marked solved; on a 9x9 one whose path goes past the singles, the grid is
filled up to its hardest step, Hint must step up to that step, and a screenshot of
it is saved beside SCREENSHOT.png as NAME-hint.png.

A user opens the pages from file://, and the script first opens PAGE.html that way
and checks that it draws its givens and takes an entry. The checks above are then made
on the same bytes served from http://127.0.0.1 (a server in this script), because
headless Chromium's local storage for file:// pages loses writes made shortly before a
reload or a change of page: with this driver, a value written just before a reload
was gone after it in 5 of 40 tries on an idle machine and 18 of 40 with both cores
busy, and in 0 of 40 over http. Checks of progress kept across pages would fail at
random on file://.

Drives Chromium through Selenium and chromedriver, from Debian's `chromium`,
`chromium-driver` and `python3-selenium` (run it with /usr/bin/python3). Override
the binaries with $CHROMIUM and $CHROMEDRIVER. Exits 0 when every check passed and
1 with a message naming the failed check otherwise; a missing tool is a failure
too, never a skip.
"""

import base64
import http.server
import os
import re
import shutil
import struct
import sys
import tempfile
import threading
import time
from pathlib import Path

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")
INSTALL = "apt-get install chromium chromium-driver python3-selenium"


class CheckFailed(Exception):
    """One check of the page did not hold."""


def expect(condition, message):
    if not condition:
        raise CheckFailed(message)


def fail(message, code=1):
    print(f"check-play-page: FAIL: {message}", file=sys.stderr)
    sys.exit(code)


try:
    from selenium import webdriver
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
except ImportError as e:
    fail(f"Selenium is not importable ({e}); install it with `{INSTALL}` and run "
         "this script with /usr/bin/python3")


class Page:
    """The play page open in the browser, read through its DOM."""

    def __init__(self, driver, url):
        self.d = driver
        self.url = url
        self.open()

    def open(self):
        self.d.get(self.url)
        self.wait_ready()

    def reload(self):
        self.d.refresh()
        self.wait_ready()

    def wait_ready(self):
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            n = self.d.execute_script("return document.querySelectorAll('#grid .cell').length")
            if n:
                return
            time.sleep(0.05)
        raise CheckFailed("the grid was not drawn within 10 s (a script error?)" + self.js_errors())

    def js_errors(self):
        try:
            logs = self.d.get_log("browser")
        except WebDriverException:
            return ""
        severe = [entry["message"] for entry in logs if entry.get("level") == "SEVERE"]
        return ("; browser errors: " + " | ".join(severe)) if severe else ""

    @property
    def data(self):
        return self.d.execute_script(
            "return JSON.parse(document.getElementById('puzzle-data').textContent)")

    def cells(self):
        """Every cell as (value symbol or '', pencil marks, class names)."""
        return [tuple(c) for c in self.d.execute_script(
            "return Array.from(document.querySelectorAll('#grid .cell'))"
            ".map(e => [e.dataset.value, e.dataset.marks, e.className])")]

    def values(self):
        return "".join(v or "." for v, _, _ in self.cells())

    def selected(self):
        return self.d.execute_script(
            "const s = document.querySelector('#grid .cell.selected');"
            "return s ? Number(s.dataset.cell) : -1")

    def text(self, element_id):
        return self.d.find_element(By.ID, element_id).text

    def grid_classes(self):
        return self.d.find_element(By.ID, "grid").get_attribute("class").split()

    def click(self, element_id):
        self.d.find_element(By.ID, element_id).click()

    def click_cell(self, i):
        self.d.find_elements(By.CSS_SELECTOR, "#grid .cell")[i].click()

    def press(self, *keys):
        ActionChains(self.d).send_keys(*keys).perform()

    def type_solution(self, givens, solution, lower=False):
        """From the top-left cell, types every empty cell's answer, moving with arrows."""
        n = int(len(givens) ** 0.5)
        self.click_cell(0)
        keys = []
        for r in range(n):
            for c in range(n):
                i = r * n + c
                if givens[i] == ".":
                    keys.append(solution[i].lower() if lower else solution[i])
                if c < n - 1:
                    keys.append(Keys.ARROW_RIGHT)
            if r < n - 1:
                keys.append(Keys.ARROW_DOWN)
                keys.extend([Keys.ARROW_LEFT] * (n - 1))
        self.press(*keys)


def shown_hint(page):
    """The hint on the grid: (pattern cells, {cell: digits to set}, {cell: digits
    that go}) read from the cells' classes and data, and the status line."""
    cells = page.d.execute_script(
        "return Array.from(document.querySelectorAll('#grid .cell')).map(e => "
        "[e.classList.contains('hint-cell'), e.dataset.hintPlace || '', "
        "(e.dataset.hintElim || '').replace('\u2212', '')])")
    pattern = sorted(i for i, (p, _, _) in enumerate(cells) if p)
    places = {i: d for i, (_, d, _) in enumerate(cells) if d}
    elims = {i: e for i, (_, _, e) in enumerate(cells) if e}
    return pattern, places, elims, page.text("status")


def check_hint(page, hint, solution):
    """Hint was pressed: the grid shows `hint` (one pattern of the page's data), and
    what it concludes holds in the solution."""
    pattern, places, elims, status = shown_hint(page)
    expect(status.startswith("Hint: "), f"the status line tells the hint: {status!r}")
    expect(pattern == sorted(hint["cells"]), f"the hint marks its cells: {pattern} vs {hint}")
    want_places = {}
    for c, d in hint["placements"]:
        want_places[c] = want_places.get(c, "") + str(d)
    want_elims = {}
    for c, d in hint["eliminations"]:
        want_elims[c] = want_elims.get(c, "") + str(d)
    expect(places == want_places and elims == want_elims,
           f"the hint shows its conclusions: {places} {elims} vs {hint}")
    expect(places or elims, "a hint concludes something")
    for c, d in places.items():
        expect(solution[c] == d, f"hint: r{c // 9 + 1}c{c % 9 + 1} is {d}, the solution says "
               f"{solution[c]}")
    for c, ds in elims.items():
        expect(solution[c] not in ds, f"hint: {solution[c]} removed from r{c // 9 + 1}c{c % 9 + 1}")


def check_main_page(page, screenshot):
    data = page.data
    expect(len(data["puzzles"]) >= 2, "the main page needs at least two puzzles")
    n = data["size"]
    symbols = data["symbols"]
    first, second = data["puzzles"][0], data["puzzles"][1]
    givens, solution = first["givens"], first["solution"]
    expect(page.values() == givens, "the first puzzle's givens are shown")
    expect(page.text("puzzle-name") == f"Puzzle {first['number']}",
           f"the header names puzzle {first['number']}, got {page.text('puzzle-name')!r}")
    expect(first["band"] in page.text("puzzle-meta"), "the header shows the band")
    empties = [i for i, ch in enumerate(givens) if ch == "."]
    a, b, c = empties[:3]
    wrong = next(s for s in symbols if s != solution[a])

    # A wrong entry and a right one; Check marks the wrong one only, reveals nothing.
    page.click_cell(a)
    page.press(wrong)
    page.click_cell(b)
    page.press(solution[b])
    # The touch pad enters and erases too.
    page.click_cell(c)
    page.d.find_element(By.CSS_SELECTOR, f"#pad button[data-value='{symbols.index(wrong) + 1}']").click()
    expect(page.cells()[c][0] == wrong, "a number pad button fills the selected cell")
    page.click("erase")
    expect(page.cells()[c][0] == "", "the pad's erase button empties the cell")
    cells = page.cells()
    expect(cells[a][0] == wrong, f"typing {wrong!r} fills cell {a}")
    expect(cells[b][0] == solution[b], f"typing {solution[b]!r} fills cell {b}")
    page.click("check")
    cells = page.cells()
    expect("wrong" in cells[a][2].split(), "Check marks the wrong entry")
    expect("wrong" not in cells[b][2].split(), "Check does not mark the right entry")
    marked = [i for i, cell in enumerate(cells) if "wrong" in cell[2].split()]
    expect(marked == [a], f"Check marks exactly the wrong entry, marked {marked}")
    filled = [i for i, ch in enumerate(page.values()) if ch != "."]
    expected_filled = sorted([i for i, ch in enumerate(givens) if ch != "."] + [a, b])
    expect(filled == expected_filled, "Check revealed answers (cells were filled)")
    expect(cells[a][0] == wrong, "Check leaves the wrong entry as typed")

    # Keys that are not symbols of the size are ignored.
    page.click_cell(c)
    before = page.values()
    page.press("x", "!", " ", "+", Keys.ENTER)
    page.click_cell(c)
    if n < 10:
        page.press("a", "A", "g")
    expect(page.values() == before, "a non-symbol key changed the grid")

    # Arrow keys move the selection, and stop at the edge.
    page.click_cell(0)
    page.press(Keys.ARROW_RIGHT, Keys.ARROW_RIGHT, Keys.ARROW_DOWN, Keys.ARROW_UP,
               Keys.ARROW_DOWN, Keys.ARROW_LEFT)
    expect(page.selected() == n + 1, f"arrows moved to cell {page.selected()}, not {n + 1}")
    page.click_cell(0)
    page.press(Keys.ARROW_UP, Keys.ARROW_LEFT)
    expect(page.selected() == 0, "arrows stop at the grid's edge")

    # Pencil mode: typing toggles candidates and leaves the cell empty.
    page.click("pencil")
    expect(page.d.find_element(By.ID, "pencil").get_attribute("aria-pressed") == "true",
           "the pencil button shows it is on")
    page.click_cell(c)
    page.press(symbols[0], symbols[1], symbols[2], symbols[1])
    page.click("pencil")
    cells = page.cells()
    expect(cells[c][0] == "", "a pencil mark is not an entry")
    expect(cells[c][1] == symbols[0] + symbols[2],
           f"pencil marks toggle: expected {symbols[0] + symbols[2]!r}, got {cells[c][1]!r}")

    # A reload restores the entries and the marks from localStorage.
    page.reload()
    cells = page.cells()
    expect(cells[a][0] == wrong and cells[b][0] == solution[b],
           "entries are restored after a reload")
    expect(cells[c][1] == symbols[0] + symbols[2], "pencil marks are restored after a reload")
    expect(page.text("puzzle-name") == f"Puzzle {first['number']}", "the same puzzle after reload")

    # Restart empties the grid; Reveal shows the solution.
    page.click("restart")
    expect(page.values() == givens, "Restart leaves only the givens")
    expect(all(m == "" for _, m, _ in page.cells()), "Restart clears the pencil marks")

    # Hint: on a fresh grid, the path's first pattern; an entry clears it; with a
    # wrong entry there is none.
    hints = first.get("hints")
    expect((n == 9) == bool(hints), "9x9 puzzles, and only they, carry hints")
    if hints:
        page.click("hint")
        check_hint(page, hints[0], solution)
        page.click_cell(b)
        page.press(solution[b])
        expect(shown_hint(page)[:3] == ([], {}, {}), "an entry clears the hint")
        page.click_cell(a)
        page.press(wrong)
        page.click("hint")
        expect(shown_hint(page)[:3] == ([], {}, {}) and "wrong" in page.text("status"),
               f"no hint while an entry is wrong: {page.text('status')!r}")
        page.click("restart")
    else:
        expect(not page.d.find_element(By.ID, "hint").is_displayed(),
               "no Hint button without hints")
    page.click("reveal")
    expect(page.values() == solution, "Reveal shows the solution")
    expect("revealed" in page.grid_classes() and "solved" not in page.grid_classes(),
           "a revealed grid is marked revealed, not solved")
    page.click_cell(a)
    page.press(wrong)
    expect(page.values() == solution, "a revealed grid takes no entry")

    # Typing the whole solution solves the puzzle.
    page.click("restart")
    page.type_solution(givens, solution)
    expect(page.values() == solution, "the typed solution is on the grid")
    expect("solved" in page.grid_classes(), "the grid is marked solved")
    expect(page.text("status").startswith("Solved"), f"status says solved: {page.text('status')!r}")
    clock = page.text("timer")
    expect(re.fullmatch(r"\d+:\d\d", clock), f"the timer shows minutes and seconds: {clock!r}")
    time.sleep(1.2)
    expect(page.text("timer") == clock, "the timer stops when the puzzle is solved")

    # Next shows the second puzzle with its number and band; Prev finds the first
    # one still solved.
    page.click("next")
    expect(page.text("puzzle-name") == f"Puzzle {second['number']}", "Next shows the next number")
    meta = page.text("puzzle-meta")
    for field in ("band", "rating", "technique"):
        if second.get(field):
            expect(second[field] in meta, f"the header shows the {field}: {meta!r}")
    expect(page.values() == second["givens"], "Next shows the next puzzle's givens")
    expect("solved" not in page.grid_classes(), "the next puzzle is not solved")
    page.click("prev")
    expect("solved" in page.grid_classes() and page.values() == solution,
           "the solved puzzle stays solved")
    page.click("next")

    # A game in progress for the picture and the screenshot.
    g2, s2 = second["givens"], second["solution"]
    empties2 = [i for i, ch in enumerate(g2) if ch == "."]
    for i in empties2[:6]:
        page.click_cell(i)
        page.press(s2[i])
    page.click("pencil")
    for i in empties2[6:9]:
        page.click_cell(i)
        page.press(s2[i], next(s for s in symbols if s != s2[i]))
    page.click("pencil")
    slip = empties2[9]
    page.click_cell(slip)
    page.press(next(s for s in symbols if s != s2[slip]))
    page.click("check")
    expect(page.text("status") == "1 entry is wrong.", f"Check counts: {page.text('status')!r}")
    page.click_cell(empties2[10])

    # Download PNG: the link gets a PNG data URL of the grid.
    page.d.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "deny"})
    page.click("download")
    href = page.d.find_element(By.ID, "download").get_attribute("href")
    prefix = "data:image/png;base64,"
    expect(href.startswith(prefix), f"Download PNG links a PNG data URL, got {href[:40]!r}")
    png = base64.b64decode(href[len(prefix):])
    expect(png[:8] == b"\x89PNG\r\n\x1a\n", "the download is a PNG")
    width, height = struct.unpack(">II", png[16:24])
    expect(width >= 300 and height >= 300, f"the picture is {width}x{height}")
    expect(page.d.find_element(By.ID, "download").get_attribute("download")
           == f"sudoku-{second['number']}.png", "the download is named after the puzzle")

    expect(page.d.save_screenshot(str(screenshot)), "the screenshot was saved")

    # Printing shows the grid and nothing else.
    page.d.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
    shown = page.d.execute_script(
        "const seen = (s) => getComputedStyle(document.querySelector(s)).display !== 'none';"
        "return ['#grid', '.page-head', '.puzzle-nav', '.controls', '#status'].map(seen)")
    page.d.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})
    expect(shown == [True, False, False, False, False],
           f"print shows only the grid (grid, title, nav, controls, status: {shown})")
    errors = page.js_errors()
    expect(not errors, "the page logged errors" + errors)


SINGLES = ("full-house", "hidden-single", "naked-single")


def check_hint_walk(page, shot):
    """On the first puzzle whose path goes past the singles: the grid filled with
    every placement before the path's hardest step, Hint shows the patterns that
    only remove candidates just before the next placement, one per press, up to
    that step; a screenshot of it."""
    data = page.data
    for index, puzzle in enumerate(data["puzzles"]):
        hints = puzzle.get("hints") or []
        hardest = max((float(h["rating"]) for h in hints), default=0)
        k = next((i for i, h in enumerate(hints)
                  if h["technique"] not in SINGLES and float(h["rating"]) == hardest), None)
        if k is not None:
            break
    else:
        return False
    for _ in range(index):
        page.click("next")
    page.click("restart")
    solution = puzzle["solution"]
    filled = set()
    for h in hints[:k]:
        for c, d in h["placements"]:
            page.click_cell(c)
            page.press(str(d))
            filled.add(c)
    # The first pattern still to place a cell, and the run of removal-only
    # patterns just before it.
    first = next(i for i, h in enumerate(hints)
                 if any(c not in filled for c, _ in h["placements"]))
    start = first
    while start > 0 and not hints[start - 1]["placements"]:
        start -= 1
    expect(start <= k <= first, f"hint {k} is next: the run is {start}..{first}")
    for i in range(start, k + 1):
        page.click("hint")
        check_hint(page, hints[i], solution)
    status = page.text("status").lower().replace("-", " ")
    expect(hints[k]["technique"].replace("-", " ") in status,
           f"the hint names {hints[k]['technique']}: {page.text('status')!r}")
    page.d.execute_script("window.scrollTo(0, 0)")
    expect(page.d.save_screenshot(str(shot)), "the hint's screenshot was saved")
    page.click("restart")
    return True


def check_other_page(page, hint_shot):
    data = page.data
    symbols = data["symbols"]
    first = data["puzzles"][0]
    givens, solution = first["givens"], first["solution"]
    expect(page.values() == givens, f"{data['size']}x{data['size']}: the givens are shown")
    letters = [i for i, ch in enumerate(givens) if ch == "." and solution[i].isalpha()]
    if letters:
        i = letters[0]
        page.click_cell(i)
        page.press(solution[i].lower())
        expect(page.cells()[i][0] == solution[i],
               f"typing {solution[i].lower()!r} enters {solution[i]!r}")
    empty = next(i for i, ch in enumerate(givens) if ch == "." and i not in letters[:1])
    page.click_cell(empty)
    beyond = chr(ord(symbols[-1]) + 1)
    page.press(beyond.lower(), beyond)
    expect(page.values()[empty] == ".", f"{beyond!r} is not a symbol of this size")
    if data["size"] == 9:
        check_hint_walk(page, hint_shot)
        page.click("restart")
        for _ in range(len(data["puzzles"])):
            page.click("prev")
    page.type_solution(givens, solution, lower=True)
    expect(page.values() == solution, "the typed solution is on the grid")
    expect("solved" in page.grid_classes(), f"the {data['size']}x{data['size']} grid is solved")
    # This page keeps its progress beside the main page's, not over it.
    pages = page.d.execute_script(
        "return Object.keys(localStorage).filter(k => k.startsWith('sudoku-factory:play:'))"
        ".map(k => k.split(':')[2])")
    expect(len(set(pages)) >= 2, f"two pages share their storage keys: {sorted(set(pages))}")
    errors = page.js_errors()
    expect(not errors, "the page logged errors" + errors)


def check_from_file(page):
    """The page as a user opens it, from file://: it draws and takes an entry."""
    first = page.data["puzzles"][0]
    givens, solution = first["givens"], first["solution"]
    expect(page.values() == givens, "from file://, the first puzzle's givens are shown")
    empty = givens.index(".")
    page.click_cell(empty)
    page.press(solution[empty])
    expect(page.cells()[empty][0] == solution[empty], "from file://, typing fills a cell")
    errors = page.js_errors()
    expect(not errors, "from file://, the page logged errors" + errors)


def serve(paths):
    """Serves each of `paths` at http://127.0.0.1:PORT/I/NAME from a thread; returns
    the server and the URLs, in order. One origin for all, as one site would be."""
    routes = {f"/{i}/{path.name}": path for i, path in enumerate(paths)}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            path = routes.get(self.path)
            if path is None:
                # The browser asks for /favicon.ico, which a 404 would log as an error.
                self.send_response(204 if self.path == "/favicon.ico" else 404)
                self.end_headers()
                return
            body = path.read_bytes()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    return server, [f"http://127.0.0.1:{port}{route}" for route in routes]


def browser(profile):
    for tool in (CHROMIUM, CHROMEDRIVER):
        if not (os.path.isfile(tool) and os.access(tool, os.X_OK)):
            fail(f"{tool} is missing; install it with `{INSTALL}`")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                 "--window-size=800,640", "--hide-scrollbars", "--force-device-scale-factor=1",
                 f"--user-data-dir={profile}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)


def main(argv):
    if len(argv) < 3:
        fail("usage: check-play-page.py PAGE.html SCREENSHOT.png [MORE.html ...]", 2)
    page_path, screenshot, more = Path(argv[1]), Path(argv[2]), [Path(p) for p in argv[3:]]
    for path in [page_path, *more]:
        if not path.is_file():
            fail(f"{path}: no such page", 2)
    started = time.monotonic()
    profile = tempfile.mkdtemp(prefix="check-play-page-")
    server, urls = serve([page_path, *more])
    driver = None
    step = page_path
    try:
        driver = browser(profile)
        # file:// and http://127.0.0.1 are two origins: the entry made here is not
        # in the storage the checks below see.
        check_from_file(Page(driver, page_path.resolve().as_uri()))
        check_main_page(Page(driver, urls[0]), screenshot)
        hint_shot = screenshot.with_name(screenshot.stem + "-hint.png")
        for path, url in zip(more, urls[1:]):
            step = path
            check_other_page(Page(driver, url), hint_shot)
    except CheckFailed as e:
        fail(f"{step}: {e}")
    except WebDriverException as e:
        fail(f"{step}: the browser failed: {e.msg or e}")
    finally:
        if driver is not None:
            driver.quit()
        server.shutdown()
        shutil.rmtree(profile, ignore_errors=True)
    print(f"check-play-page: ok, {1 + len(more)} page(s) in {time.monotonic() - started:.1f} s")


if __name__ == "__main__":
    main(sys.argv)
