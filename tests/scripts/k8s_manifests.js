// The Kubernetes manifests of contrib/kubernetes/ against the Kubernetes
// API schema: every YAML document is built as the kubernetes-models class
// of its apiVersion and kind and validated (validate() throws on a wrong
// type, a missing required field, a value outside an enum).  A broken
// copy of each document must fail (so that the check can fail).  Then
// what the schema cannot see: selectors match the pods' labels, a
// Service's named target ports exist with its protocol, the image is
// iperf3-compat:<our version>, every option in the containers' args is
// one our program knows (--help), and the Prometheus scrape config of the
// ConfigMap has the multi-target relabeling toward the exporter's Service
// (and passes `promtool check config` where promtool is installed).
//
// Usage: node k8s_manifests.js MANIFEST_DIR IPERF3
// (kubernetes-models and js-yaml found through NODE_PATH)
"use strict";

const fs = require("fs");
const os = require("os");
const path = require("path");
const { spawnSync } = require("child_process");
const yaml = require("js-yaml");

const [dir, prog] = process.argv.slice(2);
let passed = 0, failed = 0;

function record(name, problems) {
  if (problems.length) {
    failed++;
    console.log(`FAIL: ${name}: ${problems.join("; ")}`);
  } else {
    passed++;
    console.log(`PASS: ${name}`);
  }
}

function model(doc) {
  // "apps/v1" -> kubernetes-models/apps/v1/Deployment, "v1" -> .../v1/Service
  const mod = require(`kubernetes-models/${doc.apiVersion}/${doc.kind}`);
  const cls = mod[doc.kind];
  if (typeof cls !== "function") throw new Error(`no model for ${doc.kind}`);
  return new cls(doc);
}

function validation(doc) {
  try {
    model(doc).validate();
    return null;
  } catch (e) {
    return String((e && e.message) || e).split("\n")[0].slice(0, 300);
  }
}

const copy = (o) => JSON.parse(JSON.stringify(o));

// Broken copies of a document, each of which the schema must refuse.
function broken(doc) {
  const out = [];
  let b = copy(doc);
  b.metadata = "iperf3";
  out.push(["metadata a string", b]);
  const pod = (d) => d.spec && d.spec.template && d.spec.template.spec;
  if (pod(doc)) {
    b = copy(doc);
    delete pod(b).containers;
    out.push(["no containers", b]);
    b = copy(doc);
    b.spec.template.spec.containers[0].image = 5201;
    out.push(["image a number", b]);
  }
  if (doc.kind === "Service") {
    b = copy(doc);
    b.spec.ports[0].port = "5201/tcp";
    out.push(["port a string", b]);
    b = copy(doc);
    b.spec.ports[0].protocol = "QUIC";
    out.push(["protocol QUIC", b]);
  }
  if (doc.kind === "ConfigMap") {
    b = copy(doc);
    b.data[Object.keys(b.data)[0]] = 5;
    out.push(["data not a string", b]);
  }
  return out;
}

function help() {
  const r = spawnSync(prog, ["--help"], { encoding: "utf8", timeout: 30000 });
  return (r.stdout || "") + (r.stderr || "");
}

function version() {
  const r = spawnSync(prog, ["-v"], { encoding: "utf8", timeout: 30000 });
  const m = /iperf3-compat ([0-9][^;)\s]*)/.exec(r.stdout || "");
  return m ? m[1] : null;
}

const subset = (a, b) =>
  !!a && !!b && Object.entries(a).every(([k, v]) => b[k] === v);

function main() {
  const files = fs.readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).sort();
  const docs = [];
  for (const f of files) {
    let loaded;
    try {
      loaded = yaml.loadAll(fs.readFileSync(path.join(dir, f), "utf8"));
    } catch (e) {
      record(`${f}: YAML`, [String(e.message).split("\n")[0]]);
      continue;
    }
    for (const doc of loaded.filter((d) => d)) {
      const name = `${f}: ${doc.kind}/${doc.metadata && doc.metadata.name}`;
      docs.push([f, doc]);
      let err;
      try {
        err = validation(doc);
      } catch (e) {
        err = String(e.message || e);
      }
      record(`${name} validates against the API schema`, err ? [err] : []);
      for (const [what, b] of broken(doc)) {
        const e = validation(b);
        record(`${name}: a broken copy (${what}) is refused`,
          e ? [] : ["validated"]);
      }
    }
  }
  const kinds = docs.map(([, d]) => d.kind);
  for (const k of ["Deployment", "Service", "Job", "ConfigMap"]) {
    record(`a ${k} is shipped`, kinds.includes(k) ? [] : ["none"]);
  }

  // Selectors, ports, images, options.
  const deploys = docs.filter(([, d]) => d.kind === "Deployment");
  const pods = docs.filter(([, d]) => d.spec && d.spec.template);
  const text = help();
  const ver = version();
  for (const [f, d] of deploys) {
    const sel = d.spec.selector && d.spec.selector.matchLabels;
    record(`${f}: ${d.metadata.name}: the selector matches its pods`,
      subset(sel, d.spec.template.metadata.labels) ? [] : [JSON.stringify(sel)]);
  }
  for (const [f, d] of pods) {
    for (const c of d.spec.template.spec.containers) {
      const name = `${f}: ${d.metadata.name}/${c.name}`;
      record(`${name}: image iperf3-compat:${ver}`,
        c.image === `iperf3-compat:${ver}` ? [] : [c.image]);
      const opts = (c.args || []).filter((a) => /^--?[a-zA-Z]/.test(a))
        .map((a) => a.split("=")[0]);
      const unknown = opts.filter((o) => !new RegExp(
        `(^|[ ,])${o.replace(/[-]/g, "\\-")}([ ,=<\\[]|$)`, "m").test(text));
      if (unknown.length && opts.some((o) => o === "--exporter" ||
          o === "--metrics-listen") && unknown.every((o) =>
        o.startsWith("--exporter") || o === "--metrics-listen")) {
        console.log(`SKIP: ${name}: this build has no ${unknown.join(", ")}`);
        continue;
      }
      record(`${name}: our iperf3 knows ${opts.join(" ")}`,
        unknown.length ? [`unknown: ${unknown.join(" ")}`] : []);
    }
  }
  for (const [f, s] of docs.filter(([, d]) => d.kind === "Service")) {
    const target = pods.find(([, d]) =>
      subset(s.spec.selector, d.spec.template.metadata.labels));
    const probs = [];
    if (!target) {
      probs.push(`no pods match ${JSON.stringify(s.spec.selector)}`);
    } else {
      const cports = target[1].spec.template.spec.containers
        .flatMap((c) => c.ports || []);
      for (const p of s.spec.ports) {
        const proto = p.protocol || "TCP";
        const hit = cports.find((c) => (c.protocol || "TCP") === proto &&
          (c.name === p.targetPort || c.containerPort === p.targetPort));
        if (!hit) probs.push(`port ${p.name}: no container port ` +
          `${p.targetPort}/${proto}`);
      }
    }
    record(`${f}: Service ${s.metadata.name} reaches its pods' ports`, probs);
  }

  // The scrape config: the multi-target recipe toward the exporter.
  const services = docs.filter(([, d]) => d.kind === "Service")
    .map(([, d]) => d);
  const exporter = services.find((s) => s.metadata.name === "iperf3-exporter");
  const server = services.find((s) => s.metadata.name === "iperf3-server");
  for (const [f, cm] of docs.filter(([, d]) => d.kind === "ConfigMap")) {
    const probs = [];
    let prom;
    try {
      prom = yaml.load(cm.data["prometheus.yml"]);
    } catch (e) {
      record(`${f}: prometheus.yml parses`, [String(e.message)]);
      continue;
    }
    const want = exporter && `${exporter.metadata.name}:${exporter.spec.ports[0].port}`;
    const probes = (prom.scrape_configs || [])
      .filter((j) => j.metrics_path === "/probe");
    if (probes.length < 2) probs.push(`${probes.length} /probe jobs (want TCP and UDP)`);
    for (const j of probes) {
      const rl = j.relabel_configs || [];
      const has = (src, tgt) => rl.some((r) => (r.source_labels || [])
        .join() === src && r.target_label === tgt);
      if (!has("__address__", "__param_target")) probs.push(`${j.job_name}: no __address__ -> __param_target`);
      if (!has("__param_target", "instance")) probs.push(`${j.job_name}: no __param_target -> instance`);
      const addr = rl.find((r) => r.target_label === "__address__" && !r.source_labels);
      if (!addr || addr.replacement !== want) probs.push(`${j.job_name}: __address__ -> ${addr && addr.replacement}, want ${want}`);
      const targets = (j.static_configs || []).flatMap((s) => s.targets || []);
      if (!server || !targets.includes(server.metadata.name)) probs.push(`${j.job_name}: targets ${targets}`);
      const period = parseFloat(((j.params || {}).period || ["5s"])[0]);
      if (!(parseFloat(j.scrape_timeout) > period)) probs.push(`${j.job_name}: scrape_timeout ${j.scrape_timeout} not above the period ${period}s`);
    }
    if (!probes.some((j) => ((j.params || {}).udp_mode || [])[0] === "true")) probs.push("no UDP job (udp_mode=true)");
    record(`${f}: the /probe jobs relabel their targets to ${want}`, probs);
    const promtool = spawnSync("promtool", ["--version"], { encoding: "utf8" });
    if (promtool.error) {
      console.log("SKIP: promtool check config: promtool not installed (Debian: prometheus)");
      continue;
    }
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "k8s_manifests."));
    const file = path.join(tmp, "prometheus.yml");
    fs.writeFileSync(file, cm.data["prometheus.yml"]);
    const r = spawnSync("promtool", ["check", "config", file],
      { encoding: "utf8", timeout: 60000 });
    fs.rmSync(tmp, { recursive: true, force: true });
    record(`${f}: promtool check config`, r.status === 0 ? [] :
      [`exit ${r.status}: ${((r.stdout || "") + (r.stderr || "")).trim().slice(-300)}`]);
  }
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

main();
