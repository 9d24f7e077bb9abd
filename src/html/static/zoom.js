// A specimen's photographs in a deep-zoom viewer (OpenSeadragon): the canvases
// of its IIIF manifest (data-manifest), each its image service's tiles. Where
// the server serves no IIIF (no --media-dir, 404), the section stays hidden.
(function () {
  "use strict";
  var element = document.getElementById("zoom");
  if (!element || !window.OpenSeadragon) { return; }
  var viewer = document.getElementById("zoom-viewer");
  fetch(element.getAttribute("data-manifest"), { credentials: "same-origin" })
    .then(function (r) { if (!r.ok) { throw new Error("HTTP " + r.status); } return r.json(); })
    .then(function (manifest) {
      var sources = [], labels = [];
      (manifest.items || []).forEach(function (canvas) {
        var body = canvas.items[0].items[0].body;
        sources.push(body.service[0].id + "/info.json");
        var label = canvas.label && (canvas.label.none || canvas.label.en);
        labels.push(label ? String(label[0]) : "Photograph " + (labels.length + 1));
      });
      if (!sources.length) { return; }
      element.hidden = false;
      var osd = OpenSeadragon({
        element: viewer,
        tileSources: sources,
        sequenceMode: sources.length > 1,
        showNavigationControl: false,
        showSequenceControl: false,
        drawer: "canvas",
        crossOriginPolicy: false
      });
      // A button per photograph, named by its canvas (as text).
      var pages = document.getElementById("zoom-pages");
      if (pages && sources.length > 1) {
        labels.forEach(function (label, i) {
          var button = document.createElement("button");
          button.type = "button";
          button.textContent = label;
          button.addEventListener("click", function () { osd.goToPage(i); });
          pages.appendChild(button);
        });
      }
      osd.addHandler("tile-loaded", function () { element.setAttribute("data-tiles-loaded", "true"); });
      osd.addHandler("open-failed", function () { element.setAttribute("data-tiles-loaded", "false"); });
    })
    .catch(function () { element.hidden = true; });
})();
