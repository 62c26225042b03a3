// Starts Swagger UI on this hub's own description. State-changing calls made
// with the session cookie get the session's CSRF token added automatically.
(function () {
  var csrf = null;
  function loadCsrf() {
    var xhr = new XMLHttpRequest();
    xhr.open("GET", "/api/v1/auth/session", false);
    xhr.withCredentials = true;
    try {
      xhr.send();
      if (xhr.status === 200) csrf = JSON.parse(xhr.responseText).csrfToken || null;
    } catch (e) {
      csrf = null;
    }
  }
  window.ui = SwaggerUIBundle({
    url: "/openapi.json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    validatorUrl: null,
    persistAuthorization: false,
    withCredentials: true,
    tryItOutEnabled: false,
    requestInterceptor: function (req) {
      var method = (req.method || "GET").toUpperCase();
      var headers = req.headers || {};
      var hasKey = headers.Authorization || headers.authorization || headers["X-API-Key"];
      if (method !== "GET" && method !== "HEAD" && !hasKey && req.url.indexOf("/api/v1/auth/session") === -1) {
        if (csrf === null) loadCsrf();
        if (csrf) headers["X-CSRF-Token"] = csrf;
      }
      if (req.url.indexOf("/api/v1/auth/") !== -1) csrf = null;
      req.headers = headers;
      return req;
    },
  });
})();
