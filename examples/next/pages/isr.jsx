/** A Pages Router ISR page: rendered once per hour, or on demand, for every instance at once. */
export async function getStaticProps() {
  return { props: { id: crypto.randomUUID(), at: new Date().toISOString() }, revalidate: 3600 };
}

export default function Isr({ id, at }) {
  return (
    <main>
      <p>
        isr <span id="isr">{id}</span> rendered at {at}
      </p>
    </main>
  );
}
