// The constellation: communities as labelled clusters on a ring, their members around them, principles as
// diamonds; edges by strength (width and brightness), hot when walked this week, dim when going cold, dashed
// when speculative. Drawn once from GET /api/graph/constellation/; `window.constellation` keeps what was drawn.
// Community labels are elements over the canvas, not canvas text, so they keep a readable size on a narrow
// screen, show their whole name on hover, and can be measured: each is placed where it overlaps no other label
// and stays inside the drawing, or not shown (the list under the drawing names every community).
"use strict";

const LABEL_GAP = 3; // px kept clear between labels and from the drawing's edge
const LABEL_COVER = 0.2; // the share of the drawing labels may cover, so on a phone the stars still show

function layout(data, width, height) {
  const groups = new Map();
  for (const node of data.nodes) {
    const key = node.community ?? "loose";
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(node);
  }
  const keys = [...groups.keys()].sort((a, b) => groups.get(b).length - groups.get(a).length);
  const centre = { x: width / 2, y: height / 2 };
  const ring = Math.min(width, height) * 0.36;
  const positions = new Map();
  const clusters = [];
  keys.forEach((key, i) => {
    const members = groups.get(key);
    const angle = (2 * Math.PI * i) / Math.max(keys.length, 1);
    const at = keys.length === 1 ? centre : { x: centre.x + ring * Math.cos(angle), y: centre.y + ring * Math.sin(angle) };
    const radius = Math.min(ring * 0.9, 14 + 5 * Math.sqrt(members.length));
    members.forEach((node, j) => {
      const a = j * 2.39996; // golden angle: an even spiral
      const r = radius * Math.sqrt((j + 0.5) / members.length);
      positions.set(node.id, { x: at.x + r * Math.cos(a), y: at.y + r * Math.sin(a) });
    });
    clusters.push({ key, at, radius, size: members.length });
  });
  return { positions, clusters };
}

function edgeStyle(edge, across) {
  // Width grows with strength everywhere (so a confirmed edge always draws thicker) and steeply above the
  // unlearned 0.5; edges between clusters are drawn fainter so the clusters read.
  const width = 0.3 + 0.6 * edge.strength + 6 * Math.max(0, edge.strength - 0.4);
  const base = edge.cold ? 0.1 : Math.min(0.95, 0.12 + 0.9 * Math.max(0, edge.strength - 0.3));
  const alpha = edge.hot ? Math.max(base, 0.8) : across ? base * 0.35 : base;
  const colour = edge.hot ? `rgba(255, 196, 64, ${alpha})` : `rgba(140, 180, 255, ${alpha})`;
  return { width, colour, dashed: edge.speculative };
}

function draw(data) {
  const canvas = document.getElementById("sky");
  const ctx = canvas.getContext("2d");
  const { positions, clusters } = layout(data, canvas.width, canvas.height);
  ctx.fillStyle = "#0b1020";
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  const drawn = [];
  const clusterOf = new Map(data.nodes.map((n) => [n.id, n.community ?? "loose"]));
  const ordered = [...data.edges].sort((x, y) => Number(x.hot) - Number(y.hot) || x.strength - y.strength);
  for (const edge of ordered) {  // the hot and strong on top
    const a = positions.get(edge.source), b = positions.get(edge.target);
    if (!a || !b) continue;
    const style = edgeStyle(edge, clusterOf.get(edge.source) !== clusterOf.get(edge.target));
    ctx.strokeStyle = style.colour;
    ctx.lineWidth = style.width;
    ctx.setLineDash(style.dashed ? [5, 4] : []);
    ctx.beginPath();
    ctx.moveTo(a.x, a.y);
    ctx.lineTo(b.x, b.y);
    ctx.stroke();
    drawn.push({ id: edge.id, width: style.width, hot: edge.hot, dashed: style.dashed });
  }
  ctx.setLineDash([]);
  for (const node of data.nodes) {
    const p = positions.get(node.id);
    const size = 2 + Math.min(6, Math.sqrt(node.mentions));
    ctx.fillStyle = node.tier === "cold" ? "#55607a" : node.kind === "principle" ? "#ff8bd1" : "#e8eefc";
    ctx.beginPath();
    if (node.kind === "principle") {
      ctx.moveTo(p.x, p.y - size * 1.6); ctx.lineTo(p.x + size * 1.6, p.y);
      ctx.lineTo(p.x, p.y + size * 1.6); ctx.lineTo(p.x - size * 1.6, p.y);
      ctx.closePath();
    } else {
      ctx.arc(p.x, p.y, size, 0, 2 * Math.PI);
    }
    ctx.fill();
  }
  const names = new Map(data.communities.map((c) => [c.id, c]));
  const list = document.getElementById("communities");
  const overlay = document.getElementById("sky-labels");
  const labels = [];
  for (const cluster of clusters) {  // largest first: they get the first choice of places
    const community = names.get(cluster.key);
    if (!community) continue;
    const label = document.createElement("span");
    label.className = "constellation-label";
    label.textContent = community.name;
    label.title = community.name;
    overlay.appendChild(label);
    labels.push({ element: label, cluster });
    const item = document.createElement("li");
    item.textContent = `${community.name} — ${community.size} entities, cohesion ${community.cohesion}`;
    list.appendChild(item);
  }
  const place = () => placeLabels(labels, canvas);
  place();
  new ResizeObserver(place).observe(canvas);  // the canvas scales with the page: places are in screen pixels
  return drawn;
}

function overlaps(a, b) {
  return a.left < b.right + LABEL_GAP && b.left < a.right + LABEL_GAP &&
    a.top < b.bottom + LABEL_GAP && b.top < a.bottom + LABEL_GAP;
}

function placeLabels(labels, canvas) {
  // Greedy, largest community first: above its cluster, else below, beside or on it, moved inside the drawing;
  // a label that fits nowhere free, or past the share of the drawing labels may cover, is hidden.
  const width = canvas.clientWidth, height = canvas.clientHeight, scale = width / canvas.width;
  const taken = [];
  let covered = 0;
  for (const { element, cluster } of labels) {
    element.hidden = false;
    element.style.maxWidth = `${Math.max(40, Math.min(224, width / 2.5))}px`;
    const w = element.offsetWidth, h = element.offsetHeight;
    const x = cluster.at.x * scale, y = cluster.at.y * scale, r = cluster.radius * scale;
    const candidates = [
      [x - w / 2, y - r - h - LABEL_GAP], [x - w / 2, y + r + LABEL_GAP],
      [x + r + LABEL_GAP, y - h / 2], [x - r - LABEL_GAP - w, y - h / 2], [x - w / 2, y - h / 2],
    ];
    const free = candidates
      .map(([left, top]) => {
        const l = Math.min(Math.max(left, LABEL_GAP), width - w - LABEL_GAP);
        const t = Math.min(Math.max(top, LABEL_GAP), height - h - LABEL_GAP);
        return { left: l, top: t, right: l + w, bottom: t + h };
      })
      .find((box) => box.left >= 0 && box.top >= 0 && !taken.some((other) => overlaps(box, other)));
    if (!free || covered + w * h > LABEL_COVER * width * height) {
      element.hidden = true;
      continue;
    }
    covered += w * h;
    element.style.left = `${free.left}px`;
    element.style.top = `${free.top}px`;
    taken.push(free);
  }
  canvas.dataset.labelled = String(width);  // for whoever waits for the labels of this size
}

async function start() {
  const root = document.getElementById("constellation");
  const status = document.getElementById("constellation-status");
  const started = performance.now();
  const response = await fetch(`/api/graph/constellation/?vault=${root.dataset.vault}`);
  if (!response.ok) {
    status.textContent = `The graph could not be loaded (${response.status}).`;
    return;
  }
  const data = await response.json();
  const edges = draw(data);
  const ms = Math.round(performance.now() - started);
  window.constellation = { edges, nodes: data.nodes.length, ms };
  const modularity = data.modularity == null ? "no communities yet" : `modularity ${data.modularity.toFixed(3)}`;
  status.textContent = `${data.nodes.length} entities, ${edges.length} edges, ${data.communities.length} communities ` +
    `(${modularity})${data.truncated ? " — the 5,000 most mentioned" : ""}; drawn in ${ms} ms.`;
  root.dataset.drawn = String(edges.length);
}

document.addEventListener("DOMContentLoaded", start);
