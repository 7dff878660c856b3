// The review desk's only script: live progress while a run goes on, and the embedded report's height.
// Without it the pages still work (a running study's page refreshes itself).
(function () {
  "use strict";
  function progress() {
    var list = document.getElementById("events");
    if (!list || !list.dataset.stream || !window.EventSource) return;
    var source = new EventSource(list.dataset.stream);
    source.addEventListener("step", function (e) {
      var d = JSON.parse(e.data), li = document.createElement("li");
      li.textContent = d.text;
      list.appendChild(li);
    });
    source.addEventListener("problem", function (e) {
      var li = document.createElement("li");
      li.className = "problem";
      li.textContent = JSON.parse(e.data).text;
      list.appendChild(li);
    });
    source.addEventListener("end", function () {
      source.close();
      window.location.reload();
    });
    source.onerror = function () { source.close(); setTimeout(function () { window.location.reload(); }, 3000); };
  }
  function report() {
    var frame = document.getElementById("report-frame");
    if (!frame) return;
    // on screen the report scrolls in its frame; printed, the frame grows to the whole report
    function fit() {
      try {
        var doc = frame.contentDocument;
        if (doc && doc.documentElement) frame.style.height = (doc.documentElement.scrollHeight + 24) + "px";
      } catch (err) { /* another origin: keep the frame's height */ }
    }
    function unfit() { frame.style.height = ""; }
    var print = window.matchMedia ? window.matchMedia("print") : null;
    if (print && print.addEventListener) {
      print.addEventListener("change", function (e) { if (e.matches) fit(); else unfit(); });
    }
    window.addEventListener("beforeprint", fit);
    window.addEventListener("afterprint", unfit);
    frame.addEventListener("load", function () { if (print && print.matches) fit(); });
  }
  function printing() {  // the folded parts (steps, progress, other records) print unfolded
    var folded = [];
    window.addEventListener("beforeprint", function () {
      folded = Array.prototype.filter.call(document.querySelectorAll("details"), function (d) { return !d.open; });
      folded.forEach(function (d) { d.open = true; });
    });
    window.addEventListener("afterprint", function () { folded.forEach(function (d) { d.open = false; }); });
  }
  document.addEventListener("DOMContentLoaded", function () { progress(); report(); printing(); });
})();
