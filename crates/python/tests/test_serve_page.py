"""The query page of `gsi serve` in a real browser: Debian's headless Chromium, driven
through chromedriver by selenium, types a query, runs it and reads the table, which must
hold Oxigraph's solutions; the basic graph pattern is drawn; a screenshot is kept as
target/serve-page.png. Skipped, saying why, where no browser is installed."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest
from test_serve import serve
from conftest import REPO
from test_sparql_cli import XSD, oxigraph_store

pyoxigraph = pytest.importorskip("pyoxigraph")
webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--window-size=1200,900",
]


@pytest.fixture
def browser():
    missing = [str(p) for p in (CHROMIUM, CHROMEDRIVER) if not p.is_file()]
    if missing:
        pytest.skip(
            f"no browser: {', '.join(missing)} missing (apt-get install chromium chromium-driver)"
        )
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for arg in ARGS:
        options.add_argument(arg)
    driver = webdriver.Chrome(service=webdriver.ChromeService(str(CHROMEDRIVER)), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def shown(term) -> str:
    """An Oxigraph term as the page's table shows it."""
    if isinstance(term, pyoxigraph.NamedNode):
        return f"<{term.value}>"
    text = json.dumps(term.value, ensure_ascii=False)
    if term.language:
        return f"{text}@{term.language}"
    if term.datatype.value != XSD + "string":
        return f"{text}^^<{term.datatype.value}>"
    return text


def test_the_page_runs_a_query_and_shows_oxigraphs_solutions(
    gsi_binary: Path,
    browser,
    tmp_path: Path,
) -> None:
    rng = random.Random(20261202)
    people = [f"<http://ex/p{i}>" for i in range(12)]
    lines = [f'{p} <http://ex/name> "person {i}"@en .' for i, p in enumerate(people)]
    rdf_type = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"
    lines += [f"{p} {rdf_type} <http://ex/Person> ." for p in people[:8]]
    lines += [f"{a} <http://ex/knows> {b} ." for a, b in (rng.sample(people, 2) for _ in range(30))]
    data = "\n".join(sorted(set(lines))) + "\n"
    path = tmp_path / "people.nt"
    path.write_text(data)
    query = (
        "SELECT ?x ?n WHERE {\n"
        "?x a <http://ex/Person> .\n"
        "?x <http://ex/knows> ?y .\n"
        "?y <http://ex/name> ?n .\n"
        "}"
    )
    expected = Counter(
        (shown(s["x"]), shown(s["n"])) for s in oxigraph_store(data).query(query)
    )
    with serve(gsi_binary, path) as server:
        browser.get(server.url + "/")
        wait = WebDriverWait(browser, 30)
        # The examples come from the data's predicates and classes.
        wait.until(lambda b: b.find_elements(By.CSS_SELECTOR, "#examples button"))
        titles = [b.text for b in browser.find_elements(By.CSS_SELECTOR, "#examples button")]
        assert any("<http://ex/knows>" in t for t in titles), titles
        assert any("<http://ex/Person>" in t for t in titles), titles
        editor = browser.find_element(By.ID, "query")
        editor.clear()
        editor.send_keys(query)
        browser.find_element(By.ID, "run").click()
        wait.until(lambda b: "solution" in b.find_element(By.ID, "count").text)
        header = [c.text for c in browser.find_elements(By.CSS_SELECTOR, "#results th")]
        assert header == ["?x", "?n"]
        rows = Counter(
            tuple(cell.text for cell in row.find_elements(By.TAG_NAME, "td"))
            for row in browser.find_elements(By.CSS_SELECTOR, "#results tbody tr")
        )
        assert rows == expected
        count = sum(expected.values())
        assert browser.find_element(By.ID, "count").text.startswith(f"{count} solution")
        assert browser.find_element(By.ID, "time").text.endswith(" ms")
        # The pattern: ?x, ?y, ?n and the class, joined by its three triples.
        wait.until(lambda b: len(b.find_elements(By.CSS_SELECTOR, "#bgp circle")) == 4)
        assert len(browser.find_elements(By.CSS_SELECTOR, "#bgp line")) == 3
        (REPO / "target").mkdir(exist_ok=True)
        assert browser.save_screenshot(str(REPO / "target" / "serve-page.png"))
        # A malformed query shows the server's reason.
        editor.clear()
        editor.send_keys("SELECT * { ?x ?y }")
        browser.find_element(By.ID, "run").click()
        wait.until(lambda b: b.find_element(By.ID, "error").is_displayed())
        assert "400" in browser.find_element(By.ID, "error").text
