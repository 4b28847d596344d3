export async function getStaticProps() {
  return { props: { id: crypto.randomUUID() }, revalidate: 3600 };
}

export default function Isr({ id }) {
  return (
    <main>
      isr <span id="isr">{id}</span>
    </main>
  );
}
