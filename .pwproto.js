const { chromium } = require('playwright-core');
(async () => {
  const t0 = Date.now();
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox','--disable-gpu','--disable-quic','--no-first-run','--disable-background-networking','--disable-component-update','--disable-sync'] });
  console.log('launched', Date.now()-t0);
  const page = await browser.newPage();
  const q = process.argv[2] || 'ExecutionStatus="Completed"';
  await page.goto(`http://127.0.0.1:8300/namespaces/default/workflows?query=${encodeURIComponent(q)}`);
  await page.waitForTimeout(4000);
  console.log(page.url());
  const text = await page.locator('body').innerText();
  console.log(text.slice(0, 3000));
  await page.screenshot({ path: '/tmp/pwproto/shot.png', fullPage: false });
  await browser.close();
  console.log('total', Date.now()-t0);
})();
