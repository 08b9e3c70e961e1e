// jaws demo site: shows the handler's counters from /debug/jaws.
"use strict";

const statsURL = new URL("debug/jaws", document.baseURI);

function row(name, p) {
  const tr = document.createElement("tr");
  for (const v of [name, p.Responses, p.Bytes]) {
    const td = document.createElement("td");
    td.textContent = String(v);
    tr.append(td);
  }
  return tr;
}

async function refresh() {
  const body = document.querySelector("#stats tbody");
  try {
    const res = await fetch(statsURL, { cache: "no-store" });
    if (!res.ok) throw new Error(res.status + " " + res.statusText);
    const s = await res.json();
    body.replaceChildren(
      row("memory", s.Memory),
      row("zero-copy", s.ZeroCopy),
      row("fallback", s.Fallback),
    );
    document.querySelector("#requests").textContent =
      s.Requests + " requests seen by the handler";
  } catch (err) {
    body.replaceChildren();
    document.querySelector("#requests").textContent = "counters unavailable: " + err.message;
  }
}

refresh();
setInterval(refresh, 2000);
