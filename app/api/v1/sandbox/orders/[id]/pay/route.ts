export { sandboxPayOrderHandler as POST } from "@/lib/sandbox/handlers";
