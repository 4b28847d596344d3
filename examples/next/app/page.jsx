import { refreshGreeting } from './actions.js';
import { greeting } from './greeting.js';

export default async function Home() {
  const { id, at } = await greeting();
  return (
    <main>
      <p>
        greeting <span id="greeting">{id}</span> computed at {at}
      </p>
      <form action={refreshGreeting}>
        <button type="submit">refresh (updateTag)</button>
      </form>
    </main>
  );
}
