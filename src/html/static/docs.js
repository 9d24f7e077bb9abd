// Starts Swagger UI on the API's own OpenAPI document (data-spec), from a file
// rather than an inline script so the page's Content-Security-Policy holds.
(function () {
  "use strict";
  var element = document.getElementById("swagger-ui");
  window.ui = SwaggerUIBundle({
    url: element.getAttribute("data-spec"),
    dom_id: "#swagger-ui",
    deepLinking: true,
    validatorUrl: null,
    tryItOutEnabled: false,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout"
  });
})();
