import { unstable_cache } from 'next/cache';

// Stored by the incremental cache as a FETCH entry tagged "greeting"; the page itself as an APP_PAGE entry.
const greeting = unstable_cache(async () => crypto.randomUUID(), ['greeting'], { tags: ['greeting'] });

export const revalidate = 3600;

export default async function Home() {
  return (
    <main>
      greeting <span id="greeting">{await greeting()}</span>
    </main>
  );
}
