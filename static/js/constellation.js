// The constellation: communities as labelled clusters on a ring, their members around them, principles as
// diamonds; edges by strength (width and brightness), hot when walked this week, dim when going cold, dashed
// when speculative. Drawn once from GET /api/graph/constellation/; `window.constellation` keeps what was drawn.
"use strict";

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
  ctx.font = "13px system-ui, sans-serif";
  ctx.fillStyle = "#ffd98a";
  const list = document.getElementById("communities");
  for (const cluster of clusters) {
    const community = names.get(cluster.key);
    if (!community) continue;
    ctx.fillText(community.name.slice(0, 48), cluster.at.x - cluster.radius, cluster.at.y - cluster.radius - 6);
    const item = document.createElement("li");
    item.textContent = `${community.name} — ${community.size} entities, cohesion ${community.cohesion}`;
    list.appendChild(item);
  }
  return drawn;
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
