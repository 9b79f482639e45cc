// The payment page's enhancement (src/modules/checkouts/pages.ts): the page works without it
// (its form posts to the server); with it, the amounts follow the payer's choices at once
// and the Pay button starts the checkout through the public API, then follows its next step.
(function () {
  'use strict';
  var form = document.getElementById('checkout');
  if (!form || !window.fetch) return;
  var token = form.getAttribute('data-public-token');
  var currency = form.getAttribute('data-currency');
  var digits = Number(form.getAttribute('data-digits'));
  var api = '/api/v1/public/payment-links/' + encodeURIComponent(token);
  // One key per page: a Pay pressed twice (or retried after a network error) starts one checkout.
  var idempotencyKey = (window.crypto && crypto.randomUUID) ? crypto.randomUUID() : String(Date.now()) + Math.random();
  var format;
  try {
    format = new Intl.NumberFormat(document.documentElement.lang || 'en', { style: 'currency', currency: currency, minimumFractionDigits: digits, maximumFractionDigits: digits });
  } catch (e) {
    format = { format: function (n) { return n.toFixed(digits) + ' ' + currency; } };
  }

  function value(name) {
    var field = form.elements.namedItem(name);
    if (field && typeof field.value === 'string') return field.value.trim();
    return '';
  }
  function installments() {
    var checked = form.querySelector('input[name="installments"]:checked');
    return checked ? Number(checked.value) : 1;
  }
  function showErrors(errors, message) {
    var shown = false;
    form.querySelectorAll('[data-error-for]').forEach(function (p) {
      var list = errors && errors[p.getAttribute('data-error-for')];
      p.textContent = list ? list.join(' ') : '';
      p.hidden = !list;
      if (list) shown = true;
    });
    var general = form.querySelector('.error[role="alert"]');
    if (!general) {
      general = document.createElement('p');
      general.className = 'error';
      general.setAttribute('role', 'alert');
      form.insertBefore(general, form.firstChild);
    }
    general.textContent = !shown && message ? message : '';
    general.hidden = !general.textContent;
  }
  function showAmounts(q) {
    ['subtotal', 'discount', 'interest', 'total'].forEach(function (name) {
      var dd = form.querySelector('[data-amount="' + name + '"]');
      if (dd) dd.textContent = format.format(q[name]);
    });
  }
  function post(path, body, headers) {
    return fetch(api + path, {
      method: 'POST',
      headers: Object.assign({ 'Content-Type': 'application/json', Accept: 'application/json' }, headers || {}),
      body: JSON.stringify(body),
    }).then(function (response) {
      return response.json().then(function (json) { return { status: response.status, body: json }; });
    });
  }
  function couponCode() {
    var code = value('coupon_code');
    return code ? code : undefined;
  }
  var latest = 0;
  function quote() {
    var asked = ++latest;
    return post('/quote', { installments: installments(), coupon_code: couponCode() }).then(function (r) {
      if (asked !== latest) return;
      if (r.status === 200) { showErrors(null); showAmounts(r.body); }
      else showErrors(r.body.errors, r.body.message);
    }).catch(function () { showErrors(null, 'The amounts could not be updated; check your connection.'); });
  }

  form.addEventListener('change', function (event) {
    if (event.target && event.target.name === 'installments') quote();
  });
  form.addEventListener('submit', function (event) {
    event.preventDefault();
    var action = event.submitter && event.submitter.value;
    if (action !== 'pay') { quote(); return; }
    var button = event.submitter;
    button.disabled = true;
    post('/checkouts', { installments: installments(), coupon_code: couponCode(), payer: { name: value('name'), email: value('email') } }, { 'Idempotency-Key': idempotencyKey })
      .then(function (r) {
        if (r.status === 201 || r.status === 200) {
          var next = r.body.next_action ? r.body.next_action.url : '/pay/checkouts/' + encodeURIComponent(r.body.checkout_id);
          window.location.assign(next);
          return;
        }
        button.disabled = false;
        // A refused checkout may be retried with corrected fields: a new request, a new key.
        idempotencyKey = (window.crypto && crypto.randomUUID) ? crypto.randomUUID() : String(Date.now()) + Math.random();
        showErrors(r.body.errors, r.body.message);
      })
      .catch(function () {
        button.disabled = false;
        showErrors(null, 'The payment could not be started; check your connection and try again.');
      });
  });
})();
