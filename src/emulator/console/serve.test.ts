// The console's files as the launcher serves them: the page, its script and stylesheet from the build's
// assets (scripts/build.mjs writes them), with the headers that keep the page to this origin; nothing but
// GET and HEAD, nothing but those paths. The page itself is tested in Chromium (test/console.test.ts).
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { consoleResponse, isConsolePath } from './serve.js'

describe("the console's files", () => {
  test('/, /console.js and /console.css: the built files, each with its type and the security headers', async () => {
    const page = await consoleResponse('GET', '/')
    assert.equal(page.status, 200)
    assert.equal(page.headers.get('content-type'), 'text/html; charset=utf-8')
    const html = await page.text()
    assert.match(html, /<script type="module" src="\/console\.js"><\/script>/)
    assert.match(html, /<link rel="stylesheet" href="\/console\.css">/)
    assert.match(
      page.headers.get('content-security-policy') ?? '',
      /default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'/,
    )
    assert.equal(page.headers.get('x-content-type-options'), 'nosniff')
    assert.equal(await (await consoleResponse('GET', '/index.html')).text(), html)

    const script = await consoleResponse('GET', '/console.js')
    assert.equal(script.headers.get('content-type'), 'text/javascript; charset=utf-8')
    const js = await script.text()
    // One bundle, minified, that calls the control API and builds text nodes.
    assert.ok(js.includes('/_emulator') && js.includes('createTextNode'), 'the script calls the control API and writes text nodes')
    assert.ok(!/\binnerHTML\b|insertAdjacentHTML|document\.write/.test(js), 'the script never writes markup')
    assert.ok(!/https?:\/\/(?!127\.0\.0\.1)/.test(js), 'the script names no outside address')
    const css = await consoleResponse('GET', '/console.css')
    assert.equal(css.headers.get('content-type'), 'text/css; charset=utf-8')
    assert.match(await css.text(), /^\/\* The emulator's web console/)
  })

  test('HEAD answers without a body; another method is 405; other paths are not the console', async () => {
    const head = await consoleResponse('HEAD', '/')
    assert.equal(head.status, 200)
    assert.equal(await head.text(), '')
    const post = await consoleResponse('POST', '/')
    assert.deepEqual([post.status, post.headers.get('allow')], [405, 'GET, HEAD'])
    assert.deepEqual(
      ['/', '/index.html', '/console.js', '/console.css', '/v1', '/_emulator/config', '/console', '/assets/console.js', '/toString'].map(
        isConsolePath,
      ),
      [true, true, true, true, false, false, false, false, false],
    )
    assert.equal((await consoleResponse('GET', '/nothing')).status, 404)
  })
})
