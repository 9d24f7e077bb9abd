// Draws the map of a page: markers from the GeoJSON the API serves for the
// page's query (data-geojson) or one point (data-lat, data-lng), clustered; or
// features given whole (data-features), drawn as they are.
// Tiles only from the operator's --map-tiles template (data-tiles); without them,
// land and borders from the basemap this server ships (data-basemap).
(function () {
  "use strict";
  var element = document.getElementById("map");
  if (!element || !window.L) { return; }
  // The cluster layer needs a zoom range, which a map without tiles lacks.
  var map = L.map(element, { worldCopyJump: true, minZoom: 1, maxZoom: 18 });
  var tiles = element.getAttribute("data-tiles");
  if (tiles) {
    // Leaflet writes an attribution as markup: the operator's text goes in as text.
    var credit = document.createElement("span");
    credit.textContent = element.getAttribute("data-attribution") || "";
    L.tileLayer(tiles, { maxZoom: 18, attribution: credit.innerHTML }).addTo(map);
  }
  var basemap = element.getAttribute("data-basemap");
  if (!tiles && basemap) {
    fetch(basemap, { credentials: "same-origin" })
      .then(function (r) { if (!r.ok) { throw new Error("HTTP " + r.status); } return r.json(); })
      .then(function (world) {
        L.geoJSON(world, {
          interactive: false,
          style: function (feature) {
            return feature.properties.kind === "land"
              ? { stroke: true, color: "#8c8474", weight: 1, fill: true, fillColor: "#e4dcc4", fillOpacity: 1 }
              : { color: "#a89f8a", weight: 0.8, fill: false };
          }
        }).addTo(map);
        element.setAttribute("data-basemap-drawn", "true");
      })
      .catch(function () { element.setAttribute("data-basemap-drawn", "false"); });
  }
  // Without tiles, a record's place is shown with its country around it.
  var closest = tiles ? 10 : 6;
  var status = document.getElementById("map-status");
  function say(text) { if (status) { status.textContent = text; } }
  var cluster = L.markerClusterGroup();
  map.addLayer(cluster);
  map.setView([20, 0], 2);
  function place(features) {
    var layer = L.geoJSON(features, {
      onEachFeature: function (feature, marker) {
        var p = feature.properties || {};
        var label = p.usi || p.name || ("#" + feature.id);
        var link = document.createElement("a");
        link.href = element.getAttribute("data-records") + encodeURIComponent(feature.id) + "/";
        link.textContent = String(label);
        marker.bindPopup(link);
      }
    });
    cluster.addLayer(layer);
    if (layer.getLayers().length > 0) {
      map.fitBounds(cluster.getBounds(), { maxZoom: closest, padding: [20, 20] });
    }
    element.setAttribute("data-markers", String(layer.getLayers().length));
    return layer.getLayers().length;
  }
  var drawn = element.getAttribute("data-features");
  if (drawn !== null) {
    // Points with what they are (kind) and say (label), and lines between them.
    // In a pane of their own above the basemap, which arrives later.
    var colour = { point: "#b3261e", stated: "#1f5fa8", line: "#b3261e" };
    map.createPane("drawn").style.zIndex = 450;
    var layer = L.geoJSON(JSON.parse(drawn), {
      pane: "drawn",
      pointToLayer: function (feature, at) {
        return L.circleMarker(at, { pane: "drawn", radius: 5, weight: 2, color: colour[feature.properties.kind], fillOpacity: 0.7 });
      },
      style: function (feature) {
        var line = feature.geometry.type === "LineString";
        return { color: colour[feature.properties.kind] || "#555", weight: line ? 1.5 : 2, dashArray: line ? "4 4" : null };
      },
      onEachFeature: function (feature, shape) {
        var p = feature.properties || {};
        if (!p.label) { return; }
        var text = document.createElement(p.records ? "a" : "span");
        text.textContent = p.label;
        if (p.records) { text.href = p.records; }
        shape.bindPopup(text);
      }
    }).addTo(map);
    var points = layer.getLayers().length;
    if (points > 0) { map.fitBounds(layer.getBounds(), { maxZoom: closest, padding: [20, 20] }); }
    element.setAttribute("data-markers", String(points));
    return;
  }
  var lat = element.getAttribute("data-lat");
  if (lat !== null) {
    place([{ type: "Feature", id: element.getAttribute("data-id"), properties: {},
             geometry: { type: "Point", coordinates: [Number(element.getAttribute("data-lng")), Number(lat)] } }]);
    return;
  }
  var url = element.getAttribute("data-geojson");
  if (!url) { return; }
  say("Loading the map…");
  fetch(url, { headers: { Accept: "application/geo+json" }, credentials: "same-origin" })
    .then(function (r) { if (!r.ok) { throw new Error("HTTP " + r.status); } return r.json(); })
    .then(function (collection) {
      var n = place(collection.features || []);
      var total = collection.meta ? collection.meta.total_count : n;
      say(n + " of " + total + " located records on the map.");
    })
    .catch(function (e) { say("The map could not be loaded: " + e.message); });
})();
