// The query page: examples, a query run against /sparql, its results as a table, its basic
// graph pattern drawn from /bgp.
"use strict";

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";

async function loadExamples() {
  const response = await fetch("/examples");
  if (!response.ok) return;
  for (const example of await response.json()) {
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = example.title;
    button.addEventListener("click", () => {
      $("query").value = example.query;
      drawPattern();
    });
    $("examples").appendChild(button);
  }
}

// A term as the table shows it: IRIs in brackets, literals quoted with their tag or type.
function shown(term) {
  if (term === undefined) return "";
  if (term.type === "uri") return "<" + term.value + ">";
  if (term.type === "bnode") return "_:" + term.value;
  let text = JSON.stringify(term.value);
  if (term["xml:lang"]) text += "@" + term["xml:lang"];
  else if (term.datatype) text += "^^<" + term.datatype + ">";
  return text;
}

function showTable(results) {
  const table = $("results");
  table.replaceChildren();
  if ("boolean" in results) {
    const row = table.insertRow();
    row.insertCell().textContent = String(results.boolean);
    return 1;
  }
  const vars = results.head.vars;
  const head = table.createTHead().insertRow();
  for (const name of vars) {
    const cell = document.createElement("th");
    cell.textContent = "?" + name;
    head.appendChild(cell);
  }
  const body = table.createTBody();
  for (const binding of results.results.bindings) {
    const row = body.insertRow();
    for (const name of vars) row.insertCell().textContent = shown(binding[name]);
  }
  return results.results.bindings.length;
}

async function run() {
  const query = $("query").value;
  $("error").hidden = true;
  $("count").textContent = "running…";
  $("time").textContent = "";
  drawPattern();
  const started = performance.now();
  try {
    const response = await fetch("/sparql", {
      method: "POST",
      headers: {
        "Content-Type": "application/sparql-query",
        "Accept": "application/sparql-results+json",
      },
      body: query,
    });
    const text = await response.text();
    const ms = performance.now() - started;
    if (!response.ok) throw new Error(response.status + " " + response.statusText + "\n" + text);
    const results = JSON.parse(text);
    const n = showTable(results);
    $("count").textContent = "boolean" in results ? "answer: " + results.boolean
      : n + (n === 1 ? " solution" : " solutions");
    $("time").textContent = "in " + ms.toFixed(1) + " ms";
  } catch (error) {
    $("results").replaceChildren();
    $("count").textContent = "";
    $("error").textContent = error.message;
    $("error").hidden = false;
  }
}

// A term's short form for the drawing: a variable, or an IRI's last part.
function short(term) {
  const iri = term.match(/^<(.*)>$/);
  if (!iri) return term;
  const parts = iri[1].split(/[#/]/);
  return parts[parts.length - 1] || iri[1];
}

function element(name, attributes, parent) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  parent.appendChild(node);
  return node;
}

async function drawPattern() {
  const svg = $("bgp");
  svg.replaceChildren();
  const response = await fetch("/bgp?query=" + encodeURIComponent($("query").value));
  if (!response.ok) return;
  const { triples } = await response.json();
  const defs = element("defs", {}, svg);
  const marker = element("marker", { id: "arrow", viewBox: "0 0 10 10", refX: "37", refY: "5",
    markerWidth: "6", markerHeight: "6", orient: "auto-start-reverse" }, defs);
  element("path", { d: "M 0 0 L 10 5 L 0 10 z", fill: "#6b7687" }, marker);
  const nodes = [...new Set(triples.flatMap(([s, , o]) => [s, o]))];
  const place = new Map(nodes.map((node, i) => {
    const angle = (2 * Math.PI * i) / nodes.length - Math.PI / 2;
    const radius = nodes.length > 1 ? 95 : 0;
    return [node, [180 + radius * Math.cos(angle), 130 + radius * Math.sin(angle)]];
  }));
  for (const [s, p, o] of triples) {
    const [x1, y1] = place.get(s);
    const [x2, y2] = place.get(o);
    element("line", { x1, y1, x2, y2 }, svg);
    const label = element("text", { x: (x1 + x2) / 2, y: (y1 + y2) / 2 - 4 }, svg);
    label.textContent = short(p);
  }
  for (const node of nodes) {
    const [x, y] = place.get(node);
    const variable = node.startsWith("?") || node.startsWith("_:");
    element("circle", { cx: x, cy: y, r: 16, class: variable ? "variable" : "constant" }, svg);
    const label = element("text", { x, y: y + 3 }, svg);
    label.textContent = short(node);
  }
}

$("run").addEventListener("click", run);
$("query").addEventListener("keydown", (event) => {
  if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) run();
});
loadExamples();
drawPattern();
