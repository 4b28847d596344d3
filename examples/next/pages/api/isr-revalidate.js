/**
 * POST /api/isr-revalidate: regenerates the Pages Router ISR page now (on-demand ISR). The new page
 * goes to the shared store, so every instance serves it from its next request. A real app checks
 * a secret before this.
 */
export default async function handler(request, response) {
  if (request.method !== 'POST') return response.status(405).json({ error: 'POST only' });
  await response.revalidate('/isr');
  return response.json({ revalidated: '/isr' });
}
